import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Emits /sw.js with the list of built files to precache: every JS/CSS chunk (the worker bundle
 * included: it starts before the service worker controls the first visit) and fonts. ONNX
 * Runtime's 26 MB wasm is not precached: transformers.js keeps it in its own cache when a model
 * first loads.
 */
function serviceWorker(): Plugin {
  return {
    name: 'app-shell-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.values(bundle)
        .map((item) => item.fileName)
        .filter((name) => /\.(js|mjs|css|woff2)$/.test(name))
        .map((name) => `/${name}`);
      const precache = ['/', ...files];
      const version = createHash('sha256').update(precache.join('\n')).digest('hex').slice(0, 12);
      const source = readFileSync(new URL('./src/service-worker/sw.js', import.meta.url), 'utf8')
        .replace('__VERSION__', version)
        .replace('__PRECACHE__', JSON.stringify(precache));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

// One config for the app; `--mode mock` (npm run dev:mock) starts MSW in the browser
// (see src/main.tsx), every other mode talks to the real services.
export default defineConfig({
  plugins: [react(), serviceWorker()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // The worker chunk (transformers.js + ONNX Runtime) is large by nature and never loads on
    // the main thread; the main-thread budget is checked by tests/e2e/bundle-budget.e2e.test.ts.
    chunkSizeWarningLimit: 4096,
    assetsInlineLimit: 0,
  },
  server: { port: 5173 },
  preview: { port: 5173 },
});
