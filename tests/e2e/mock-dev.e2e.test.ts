/**
 * `npm run dev:mock` on a fresh checkout: the first page is the only page. Before, the dev server
 * found `@huggingface/transformers` (imported by the worker, which its scan of index.html does
 * not reach) and others only when the page asked for them, re-bundled its dependencies and
 * reloaded the page ("optimized dependencies changed. reloading") a few seconds after it
 * opened, throwing away what the user had typed.
 *
 * The dev server starts here in mock mode on a free port with an empty dependency cache of its
 * own (`DEV_CACHE_DIR`, read by vite.config.ts), so other servers' caches are not touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launch } from './harness';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

let server: ChildProcess;
let url = '';
let cacheDir = '';
let output = '';

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'vite-cache-'));
  const port = await freePort();
  server = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      '--mode',
      'mock',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--strictPort',
    ],
    { cwd: ROOT, env: { ...process.env, DEV_CACHE_DIR: cacheDir }, stdio: 'pipe' },
  );
  server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  url = `http://127.0.0.1:${port}/`;
  // A loaded 2-core machine: give the server (and its first optimisation) time to start.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`vite exited:\n${output}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`vite did not answer on ${url}:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
});

describe('npm run dev:mock with an empty dependency cache', () => {
  it('opens once: no reload after the dependencies are found, typed text kept', async () => {
    // WebGPU on, so the session starts and the worker imports transformers.js, as on a laptop.
    const browser = await launch({ webgpu: true });
    try {
      const { page, context } = browser;
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations++;
      });
      let transformersServed = false;
      context.on('response', (response) => {
        if (/huggingface_transformers|@huggingface\/transformers/.test(response.url()))
          transformersServed = true;
      });
      await page.goto(url);
      await page
        .getByRole('heading', { name: 'Load local LLM models within the browser!' })
        .waitFor({ timeout: 90_000 });
      await expect.poll(() => page.getByText('Mock mode').first().isVisible()).toBe(true);
      const field = page.getByLabel('Data file path');
      await field.fill('typed before the dependencies were found');
      // The worker has asked for transformers.js: the dependency the server used to find late.
      await expect.poll(() => transformersServed, { timeout: 90_000 }).toBe(true);
      await page.waitForLoadState('networkidle', { timeout: 90_000 });
      // A reload came about three seconds after the page opened: wait well past that.
      await page.waitForTimeout(8000);
      await page.waitForLoadState('networkidle', { timeout: 90_000 });

      expect(output).not.toMatch(/reloading/);
      expect(navigations).toBe(1);
      expect(await field.inputValue()).toBe('typed before the dependencies were found');
    } finally {
      if (browser.consoleErrors.length) console.log(browser.consoleErrors.join('\n'));
      await browser.close();
    }
  }, 240_000);
});
