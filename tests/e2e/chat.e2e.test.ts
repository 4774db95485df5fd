/**
 * The whole chat experience in Debian Chromium: the built app, the real worker and
 * transformers.js on SwiftShader WebGPU, a tiny random-weight model served from loopback through
 * the same loading code path as the four hub models. Every non-loopback request is aborted and
 * the test asserts none was attempted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import {
  SCREENSHOT_DIR,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  chooseModel,
  launch,
  loadModel,
  serveDist,
  serveModels,
  type Browser,
  type RunningServer,
} from './harness';

let app: RunningServer;
let models: RunningServer;

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

function appUrl(...extraModels: string[]) {
  const extras = (extraModels.length ? extraModels : [TINY_MODEL_ID])
    .map((m) => `&extraModel=${m}`)
    .join('');
  return `${app.url}?modelHost=${encodeURIComponent(models.url)}${extras}&maxTokens=48`;
}

async function shot(browser: Browser, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await browser.page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

beforeAll(async () => {
  app = await serveDist();
  models = await serveModels(
    {
      [TINY_MODEL_ID]: TINY_MODEL_DIR,
      'local/corrupt-model': TINY_MODEL_DIR,
      'local/missing-weights': TINY_MODEL_DIR,
    },
    slowModelFile,
  );
});

afterAll(async () => {
  await app?.close();
  await models?.close();
});

describe('chat in Chromium', () => {
  it('without WebGPU: the blocking overlay', async () => {
    const browser = await launch({ webgpu: false });
    try {
      await browser.page.goto(app.url);
      await expect
        .poll(() =>
          browser.page.getByText('WebGPU is not supported by this browser :(').isVisible(),
        )
        .toBe(true);
      await shot(browser, 'overlay');
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('load failures (corrupt file, missing file, no shader-f16): the red error block with the worker message', async () => {
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(
        appUrl('local/corrupt-model', 'local/missing-weights', 'local/missing-model'),
      );
      await chooseModel(page, /corrupt-model/);
      await page.getByRole('button', { name: 'Load model' }).click();
      const alert = page.getByRole('alert');
      await expect
        .poll(() => alert.textContent(), { timeout: 60_000 })
        .toMatch(/Unable to load model due to the following error:/);
      expect(await alert.textContent()).toMatch(/corrupt|protobuf|invalid/i);
      // One clear action: Retry replaces Load (a greyed Load stood beside Retry).
      expect(await page.getByRole('button', { name: 'Load model' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Retry' }).isVisible()).toBe(true);
      await shot(browser, 'load-error');

      // Choosing another model recovers; a missing weights file is named before any download
      // (the plan reads the files' metadata), and Load stays disabled.
      await chooseModel(page, /missing-weights/);
      expect(await page.locator('.load-error').count()).toBe(0);
      await expect
        .poll(() => alert.first().textContent(), { timeout: 60_000 })
        .toBe('local/missing-weights has no fp32 variant: onnx/model.onnx not found.');
      expect(await page.getByRole('button', { name: 'Load model' }).isDisabled()).toBe(true);

      // A repo without tokenizer files says so.
      await chooseModel(page, /missing-model/);
      await page.getByRole('button', { name: 'Load model' }).click();
      await expect
        .poll(() => alert.textContent(), { timeout: 60_000 })
        .toMatch(/Could not load the tokenizer of local\/missing-model/);

      // SwiftShader has no shader-f16: Phi 3.5 (q4f16 only) fails with a clear message, at once.
      await chooseModel(page, /Phi 3\.5/);
      await page.getByRole('button', { name: 'Load model' }).click();
      await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/shader-f16/);
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('load with progress bars, stream a reply with tokens/second, stop, reset (offline reload: offline.e2e.test.ts)', async () => {
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(appUrl());
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
      await shot(browser, 'initial');

      await chooseModel(page, /tiny-random-llama/);
      await page.getByRole('button', { name: 'Load model' }).click();
      const bar = page.getByRole('progressbar', { name: 'onnx/model.onnx' });
      await expect
        .poll(() => bar.textContent(), { timeout: 30_000 })
        .toMatch(/^onnx\/model\.onnx \(\d+\.\d{2}% of \d+\.\d{2}(kB|MB)\)$/);
      await shot(browser, 'loading');

      await expect
        .poll(() => page.getByText('Ready!').isVisible(), { timeout: 120_000 })
        .toBe(true);
      expect(await page.getByRole('textbox', { name: 'Message' }).getAttribute('title')).toBe(
        'Model is ready',
      );
      await shot(browser, 'ready');

      // Send with Enter: the user bubble, then a streamed assistant reply and the speed line.
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Hello there');
      await box.press('Enter');
      expect(await box.inputValue()).toBe('');
      await expect
        .poll(() => page.locator('.bubble-user').first().textContent())
        .toBe('Hello there');
      await expect
        .poll(() => page.locator('.speed').textContent(), { timeout: 120_000 })
        .toMatch(/Generated \d+ tokens in \d+\.\d{2} seconds/);
      const reply = (await page.locator('.bubble-assistant').first().textContent()) ?? '';
      expect(reply.trim().length).toBeGreaterThan(0);
      expect(await page.locator('.speed-detail').textContent()).toMatch(
        /^Prefill: \d+ prompt tokens, first token after \d+\.\d{2} s · Decode: \d+\.\d{2} tokens\/s$/,
      );
      await shot(browser, 'chat');

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
      const stopped = (await page.locator('.speed').textContent()) ?? '';
      const tokens = Number(/Generated (\d+) tokens/.exec(stopped)?.[1]);
      expect(tokens).toBeLessThan(48);
      expect(await page.locator('.bubble-user').count()).toBe(2);

      // Reset clears the conversation.
      await page.getByRole('button', { name: 'Reset' }).click();
      await expect.poll(() => page.getByText('Ready!').isVisible()).toBe(true);
      expect(await page.locator('.bubble-user').count()).toBe(0);

      expect(browser.foreignRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('a dead worker and a lost GPU: a specific message, the typed text kept, the model loaded again', async () => {
    // Its own model host: the offline test above closes the shared one.
    const host = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      // ?debug exposes window.__llmWorker and lets the worker accept debug.close and
      // debug.loseDevice. The silence allowed is the app's own (no ?stallSeconds).
      await page.goto(
        `${app.url}?modelHost=${encodeURIComponent(host.url)}&extraModel=${TINY_MODEL_ID}&maxTokens=400&debug`,
      );
      await loadModel(page, /tiny-random-llama/);

      // (a) The worker closes itself mid-reply (dies without an error event): its heartbeat
      // stops, and the alert comes within 15 s (it took the 60 s stall timer before).
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Count to one hundred');
      await box.press('Enter');
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
        .toContain('The model stopped responding: no reply for 10 seconds. Load the model again.');
      console.log(`dead worker noticed ${Date.now() - closedAt} ms after it closed`);
      expect(Date.now() - closedAt).toBeLessThan(15_000);
      expect(await box.inputValue()).toBe('my next question');
      await shot(browser, 'worker-lost');
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
      await box.press('Enter');
      await expect
        .poll(() => page.locator('.speed').textContent(), { timeout: 120_000 })
        .toMatch(/Generated \d+ tokens/);
      expect(await page.locator('.bubble-user').count()).toBe(2);
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      if (browser.consoleErrors.length) console.log(browser.consoleErrors.join('\n'));
      await browser.close();
      await host.close();
    }
  }, 540_000);
});
