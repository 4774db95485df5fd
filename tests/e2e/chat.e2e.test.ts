/**
 * The whole chat experience in Debian Chromium: the built app, the real worker and
 * transformers.js on SwiftShader WebGPU, a tiny random-weight model served from loopback through
 * the same loading code path as the four hub models. Every non-loopback request is aborted and
 * the test asserts none was attempted.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import {
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  appUrl,
  chooseModel,
  failToLoad,
  generatedTokens,
  inBrowser,
  loadModel,
  screenshot,
  send,
  serveAppAndModels,
  serveModels,
  startLoading,
  waitForReply,
  type Browser,
} from './harness';

/** Streams the ONNX file slowly so the per-file progress bars are observable. */
function slowModelFile(repo: string, file: string, res: ServerResponse): boolean {
  if (repo === 'local/missing-weights' && file.startsWith('onnx/')) {
    res.writeHead(404, { 'Access-Control-Allow-Origin': '*' });
    res.end('Entry not found');
    return true;
  }
  if (repo === 'local/corrupt-model' && file === 'onnx/model.onnx') {
    const junk = Buffer.from('this is not an onnx protobuf at all'.repeat(100));
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(junk.length),
      'Access-Control-Allow-Origin': '*',
    });
    res.end(junk);
    return true;
  }
  if (repo === TINY_MODEL_ID && file === 'onnx/model.onnx') {
    const data = readFileSync(join(TINY_MODEL_DIR, file));
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(data.length),
      'Access-Control-Allow-Origin': '*',
    });
    const chunks = 12;
    const size = Math.ceil(data.length / chunks);
    let i = 0;
    const timer = setInterval(() => {
      res.write(data.subarray(i * size, (i + 1) * size));
      i += 1;
      if (i >= chunks) {
        clearInterval(timer);
        res.end();
      }
    }, 150);
    return true;
  }
  return false;
}

const servers = serveAppAndModels(
  {
    [TINY_MODEL_ID]: TINY_MODEL_DIR,
    'local/corrupt-model': TINY_MODEL_DIR,
    'local/missing-weights': TINY_MODEL_DIR,
  },
  slowModelFile,
);

/** The app with these models in the picker (the tiny model when none is named). */
function chatUrl(...extraModels: string[]) {
  const extras = (extraModels.length ? extraModels : [TINY_MODEL_ID])
    .map((m) => `&extraModel=${m}`)
    .join('');
  return servers.url(`${extras}&maxTokens=48`);
}

describe('chat in Chromium', () => {
  it('without WebGPU: the blocking overlay', async () => {
    await inBrowser(servers.app.url, { webgpu: false }, async ({ page }) => {
      await expect
        .poll(() => page.getByText('WebGPU is not supported by this browser :(').isVisible())
        .toBe(true);
      await screenshot(page, 'overlay');
    });
  });

  it('load failures (corrupt file, missing file, no shader-f16): the red error block with the worker message', async () => {
    const url = chatUrl('local/corrupt-model', 'local/missing-weights', 'local/missing-model');
    await inBrowser(url, { webgpu: true }, async ({ page }) => {
      const alert = await failToLoad(
        page,
        /corrupt-model/,
        /Unable to load model due to the following error:/,
      );
      expect(await alert.textContent()).toMatch(/corrupt|protobuf|invalid/i);
      // One clear action: Retry replaces Load (a greyed Load stood beside Retry).
      expect(await page.getByRole('button', { name: 'Load model' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Retry' }).isVisible()).toBe(true);
      await screenshot(page, 'load-error');

      // Choosing another model recovers; a missing weights file is named before any download
      // (the plan reads the files' metadata), and Load stays disabled.
      await chooseModel(page, /missing-weights/);
      expect(await page.locator('.load-error').count()).toBe(0);
      await expect
        .poll(() => alert.first().textContent(), { timeout: 60_000 })
        .toBe('local/missing-weights has no fp32 variant: onnx/model.onnx not found.');
      expect(await page.getByRole('button', { name: 'Load model' }).isDisabled()).toBe(true);

      // A repo without tokenizer files says so.
      await failToLoad(
        page,
        /missing-model/,
        /Could not load the tokenizer of local\/missing-model/,
      );

      // SwiftShader has no shader-f16: Phi 3.5 (q4f16 only) fails with a clear message, at once.
      await failToLoad(page, /Phi 3\.5/, /shader-f16/, { timeout: 30_000 });
    });
  });

  it('load with progress bars, stream a reply with tokens/second, stop, reset (offline reload: offline.e2e.test.ts)', async () => {
    const prepare = async ({ page }: Browser) => {
      // Notes when each of the worker's text updates reaches the page (the app's own handler is
      // untouched: this listener is a second one on the same Worker).
      await page.addInitScript(() => {
        const NativeWorker = window.Worker;
        const seen: number[] = [];
        Object.assign(window, { __updateTimes: seen });
        window.Worker = class extends NativeWorker {
          constructor(url: string | URL, options?: WorkerOptions) {
            super(url, options);
            this.addEventListener('message', (e: MessageEvent<{ status?: string }>) => {
              if (e.data?.status === 'update') seen.push(performance.now());
            });
          }
        };
      });
    };
    await inBrowser(chatUrl(), { webgpu: true, prepare }, async ({ page }) => {
      await expect
        .poll(() =>
          page
            .getByRole('heading', { name: 'Load local LLM models within the browser!' })
            .isVisible(),
        )
        .toBe(true);
      expect(await page.getByRole('textbox', { name: 'Message' }).getAttribute('title')).toBe(
        'Model not loaded yet',
      );
      await screenshot(page, 'initial');

      await startLoading(page, /tiny-random-llama/);
      const bar = page.getByRole('progressbar', { name: 'onnx/model.onnx' });
      await expect
        .poll(() => bar.textContent(), { timeout: 30_000 })
        .toMatch(/^onnx\/model\.onnx \(\d+\.\d{2}% of \d+\.\d{2}(kB|MB)\)$/);
      await screenshot(page, 'loading');

      await expect
        .poll(() => page.getByText('Ready!').isVisible(), { timeout: 120_000 })
        .toBe(true);
      expect(await page.getByRole('textbox', { name: 'Message' }).getAttribute('title')).toBe(
        'Model is ready',
      );
      await screenshot(page, 'ready');

      // Send with Enter: the user bubble, then a streamed assistant reply and the speed line.
      const box = await send(page, 'Hello there');
      expect(await box.inputValue()).toBe('');
      await expect
        .poll(() => page.locator('.bubble-user').first().textContent())
        .toBe('Hello there');
      const reply = await waitForReply(page, 0);
      expect(reply.trim().length).toBeGreaterThan(0);
      expect(await page.locator('.speed-detail').textContent()).toMatch(
        /^Prefill: \d+ prompt tokens, first token after \d+\.\d{2} s · Decode: \d+\.\d{2} tokens\/s$/,
      );
      // SwiftShader is a fallback adapter (its compute shares the page's cores): the worker posts
      // the text every 200 ms there, not every 100 ms (src/worker/update-batcher.ts). The mean
      // gap between updates after the first (posted at once) says which; the tiny model decodes
      // well over 5 tokens/s, so at 100 ms the gap would be near 100 ms.
      const times = await page.evaluate(
        () => (window as unknown as { __updateTimes: number[] }).__updateTimes,
      );
      const later = times.slice(1);
      expect(later.length, 'text updates after the first').toBeGreaterThanOrEqual(4);
      expect((later.at(-1)! - later[0]!) / (later.length - 1)).toBeGreaterThan(180);
      await screenshot(page, 'chat');

      // Stop: the reply is marked "Stopped" and no text arrives after that.
      await box.fill('Tell me more');
      await page.getByRole('button', { name: 'Send message' }).click();
      const second = page.locator('.bubble-assistant').nth(1);
      await expect.poll(() => second.textContent(), { timeout: 60_000 }).not.toBe('');
      await page.getByRole('button', { name: 'Stop generating' }).click();
      await expect.poll(() => second.getByText('Stopped').isVisible()).toBe(true);
      const atStop = await second.textContent();
      await expect
        .poll(() => page.getByRole('button', { name: 'Send message' }).isVisible(), {
          timeout: 60_000,
        })
        .toBe(true);
      await page.waitForTimeout(500);
      expect(await second.textContent()).toBe(atStop);
      expect(await generatedTokens(page)).toBeLessThan(48);
      expect(await page.locator('.bubble-user').count()).toBe(2);

      // Reset clears the conversation.
      await page.getByRole('button', { name: 'Reset' }).click();
      await expect.poll(() => page.getByText('Ready!').isVisible()).toBe(true);
      expect(await page.locator('.bubble-user').count()).toBe(0);
    });
  });

  it('a dead worker and a lost GPU: a specific message, the typed text kept, the model loaded again', async () => {
    // Its own model host: the offline test above closes the shared one.
    const host = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
    // ?debug exposes window.__llmWorker and lets the worker accept debug.close and
    // debug.loseDevice. The silence allowed is the app's own (no ?stallSeconds).
    const url = appUrl(servers.app, host, `&extraModel=${TINY_MODEL_ID}&maxTokens=400&debug`);
    try {
      await inBrowser(url, { webgpu: true }, async ({ page }) => {
        await loadModel(page, /tiny-random-llama/);

        // (a) The worker closes itself mid-reply (dies without an error event): its heartbeat
        // stops, and the alert comes within 15 s (it took the 60 s stall timer before).
        const box = await send(page, 'Count to one hundred');
        await expect
          .poll(() => page.locator('.bubble-assistant').first().textContent(), { timeout: 60_000 })
          .not.toBe('');
        await box.fill('my next question');
        await page.evaluate(() =>
          (window as unknown as { __llmWorker: Worker }).__llmWorker.postMessage({
            type: 'debug.close',
          }),
        );
        const closedAt = Date.now();
        const alert = page.getByRole('alert');
        await expect
          .poll(() => alert.textContent(), { timeout: 15_000, interval: 250 })
          .toContain(
            'The model stopped responding: no reply for 10 seconds. Load the model again.',
          );
        console.log(`dead worker noticed ${Date.now() - closedAt} ms after it closed`);
        expect(Date.now() - closedAt).toBeLessThan(15_000);
        expect(await box.inputValue()).toBe('my next question');
        await screenshot(page, 'worker-lost');
        await page.getByRole('button', { name: 'Load the model again' }).click();
        await expect.poll(() => box.isEnabled(), { timeout: 120_000 }).toBe(true);
        expect(await box.inputValue()).toBe('my next question');
        expect(await page.locator('.bubble-user').count()).toBe(1);

        // (b) GPUDevice.lost (ONNX Runtime's device destroyed inside the fresh worker).
        await page.evaluate(() =>
          (window as unknown as { __llmWorker: Worker }).__llmWorker.postMessage({
            type: 'debug.loseDevice',
          }),
        );
        await expect
          .poll(() => alert.textContent(), { timeout: 30_000 })
          .toMatch(/The GPU was lost: .+ Load the model again\./);
        expect(await box.inputValue()).toBe('my next question');
        await page.getByRole('button', { name: 'Load the model again' }).click();
        await expect.poll(() => box.isEnabled(), { timeout: 120_000 }).toBe(true);
        // The reloaded model answers: its reply streams (then Stop: the 400-token cap is for (a)).
        await box.press('Enter');
        const second = page.locator('.bubble-assistant').nth(1);
        await expect.poll(() => second.textContent(), { timeout: 120_000 }).not.toBe('');
        await page.getByRole('button', { name: 'Stop generating' }).click();
        await expect
          .poll(() => page.locator('.speed').textContent(), { timeout: 120_000 })
          .toMatch(/Generated \d+ tokens/);
        expect(await page.locator('.bubble-user').count()).toBe(2);
      });
    } finally {
      await host.close();
    }
  }, 540_000);
});
