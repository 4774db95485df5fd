import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { precacheList } from './src/service-worker/precache.ts';

function filesUnder(dir: string): string[] {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

/**
 * Emits /sw.js with its precache list derived from the build's own output: the bundle Vite
 * wrote (every chunk and asset, the worker bundle included) plus the files copied from public/
 * (see src/service-worker/precache.ts for what is kept). The version hashes every emitted file's
 * content, so any change to the build installs a new service worker.
 */
function serviceWorker(): Plugin {
  let publicDir = '';
  return {
    name: 'app-shell-service-worker',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    generateBundle(_options, bundle) {
      const publicFiles = filesUnder(publicDir);
      const precache = precacheList(Object.keys(bundle), publicFiles);
      const hash = createHash('sha256');
      for (const name of Object.keys(bundle).sort()) {
        const item = bundle[name];
        hash.update(name).update(item?.type === 'chunk' ? item.code : (item?.source ?? ''));
      }
      for (const name of publicFiles.sort())
        hash.update(name).update(readFileSync(join(publicDir, name)));
      const version = hash.digest('hex').slice(0, 12);
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
  // DEV_CACHE_DIR: a dependency cache of its own (tests/e2e/mock-dev.e2e.test.ts starts a dev
  // server with an empty one, leaving node_modules/.vite to the other servers).
  cacheDir: process.env.DEV_CACHE_DIR || 'node_modules/.vite',
  // The dev server pre-bundles every dependency before the first page: its scan starts from
  // index.html and cannot see the worker (`new Worker(new URL(…))`), so @huggingface/transformers
  // was found only when the worker asked for it, and the page reloaded ("optimized dependencies
  // changed. reloading") seconds after it opened. Scanning the worker too makes the first page
  // the only one (tests/e2e/mock-dev.e2e.test.ts).
  optimizeDeps: { entries: ['index.html', 'src/worker/llm.worker.ts'] },
  // @xstate/react imports use-sync-external-store's shim (a fallback for React < 18): React 19
  // has the hook, so the non-shim entries (which call React's own) keep the fallback out.
  resolve: {
    alias: [
      {
        find: /^use-sync-external-store\/shim\/with-selector$/,
        replacement: 'use-sync-external-store/with-selector',
      },
      { find: /^use-sync-external-store\/shim$/, replacement: 'use-sync-external-store' },
    ],
  },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // The worker chunk (transformers.js + ONNX Runtime) is large by nature and never loads on
    // the main thread; the main-thread budget is checked by tests/e2e/bundle-budget.e2e.test.ts.
    chunkSizeWarningLimit: 4096,
    assetsInlineLimit: 0,
    // No modulepreload polyfill in the first load: every browser with WebGPU (the app's
    // requirement) preloads modules natively.
    modulePreload: { polyfill: false },
    // Rolldown's "JavaScript callbacks ran for N s" notice is a profiling hint, not a problem:
    // kept out of `npm start`'s output.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      output: {
        codeSplitting: {
          // A group takes only its own modules, not everything they import (which would pull
          // modules the entry needs into a lazy group and make the entry wait for it).
          includeDependenciesRecursively: false,
          groups: [
            // XState in one chunk (the entry and several lazy chunks share it): left to itself the
            // bundler cut it in three, each compressing worse (more first-load JS).
            { name: 'xstate', test: /node_modules[\\/]xstate[\\/]/ },
            // The training client, its zod schemas and the training machine: one chunk, loaded
            // with the training panel (src/composition.ts), instead of five small ones.
            {
              name: 'training',
              test: /src[\\/](actors[\\/]training-client|shared[\\/]training-(api|progress|fields)|machines[\\/]trainingMachine)\.ts$|node_modules[\\/]zod[\\/]/,
            },
          ],
        },
      },
      // @huggingface/inference declares no `sideEffects`, so every module its index re-exports
      // (snippet templates, jinja, all tasks) would follow `chatCompletionStream` into the
      // hosted-chat chunk. Its modules only define things: let unused ones be dropped.
      treeshake: {
        moduleSideEffects: [
          { test: /node_modules[\\/]@huggingface[\\/]inference[\\/]/, sideEffects: false },
        ],
      },
    },
  },
  server: { port: 5173 },
  preview: { port: 5173 },
});
