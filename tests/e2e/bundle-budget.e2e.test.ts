/**
 * Budget: first-load JS on the main thread ≤ 120 KB gzip; transformers.js and ONNX Runtime only in
 * the worker; KaTeX, the hub and the inspector in lazy chunks. Measured on the built app in
 * Chromium: every script the page itself fetched before any interaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { DIST, launch, serveDist, type RunningServer } from './harness';

const BUDGET_BYTES = 120 * 1024;
let app: RunningServer;

beforeAll(async () => {
  app = await serveDist();
});
afterAll(async () => {
  await app?.close();
});

function gzipSize(path: string): number {
  return gzipSync(readFileSync(join(DIST, path)), { level: 9 }).length;
}

describe('bundle budget', () => {
  it('first-load main-thread JS stays within 120 KB gzip and holds no ML runtime', async () => {
    const browser = await launch({ webgpu: true });
    try {
      const scripts = new Set<string>();
      const workerScripts = new Set<string>();
      browser.page.on('worker', (w) => workerScripts.add(new URL(w.url()).pathname));
      browser.page.on('response', (r) => {
        const url = new URL(r.url());
        if (r.request().resourceType() === 'script' && url.pathname.endsWith('.js'))
          scripts.add(url.pathname);
      });
      await browser.page.goto(app.url);
      await browser.page
        .getByRole('heading', { name: 'Load local LLM models within the browser!' })
        .waitFor();
      await browser.page.waitForLoadState('networkidle');
      const mainThread = [...scripts].filter(
        (p) => !workerScripts.has(p) && !/llm\.worker/.test(p),
      );
      const sizes = mainThread.map((p) => ({ path: p, gzip: gzipSize(p.slice(1)) }));
      const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
      console.log(
        'first-load main-thread JS (gzip):',
        sizes,
        `total ${(total / 1024).toFixed(1)} KB`,
      );
      expect(mainThread.length).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
      for (const p of mainThread) {
        const source = readFileSync(join(DIST, p.slice(1)), 'utf8');
        expect(source, p).not.toMatch(/onnxruntime|InferenceSession\.create|AutoModelForCausalLM/);
        expect(source, p).not.toMatch(/katex-display|\\\\textstyle/);
      }
    } finally {
      await browser.close();
    }
  });
});
