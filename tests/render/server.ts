import { createServer, type ViteDevServer } from 'vite';
import { ROOT } from '../e2e/harness';

/** Vite's dev server on loopback serving tests/render/harness.html. */
export async function startRenderHarness(): Promise<{ url: string; server: ViteDevServer }> {
  const server = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, hmr: false },
    optimizeDeps: { include: ['marked', 'dompurify', 'katex'] },
  });
  await server.listen();
  const address = server.httpServer?.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/tests/render/harness.html`, server };
}
