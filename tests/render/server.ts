import { createServer, type ViteDevServer } from 'vite';
import { launch, ROOT, type Browser } from '../e2e/harness';

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

/**
 * The harness served and open in a fresh headless Chromium, its renderer ready (`prepare` runs
 * before the page loads: init scripts, dialog listeners). `close` ends both.
 */
export async function openRenderHarness(
  prepare: (page: Browser['page']) => Promise<void> | void = () => undefined,
): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const harness = await startRenderHarness();
  const browser = await launch({ webgpu: false });
  await prepare(browser.page);
  // The dev server transforms the harness's modules on the first request: on a loaded machine
  // that takes longer than Playwright's 30 s default.
  await browser.page.goto(harness.url, { timeout: 120_000 });
  await browser.page.waitForFunction(() => 'harness' in window, undefined, { timeout: 120_000 });
  return {
    browser,
    close: async () => {
      await browser.close();
      await harness.server.close();
    },
  };
}
