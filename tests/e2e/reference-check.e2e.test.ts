/**
 * "Checked on this GPU" in Chromium (SwiftShader WebGPU, which has no shader-f16): a real trained
 * tiny Llama (`training/make_test_export.py OUT llama`: taught one answer, exported by
 * training/web_export.py as the trainer exports it, with export.json's reference) is served by the
 * real training service as three trained models, through the fixture trainer copying a folder into
 * `<output_dir>/web/`: `good` (every variant: q4f16 first, so q4 loads here), `good-fp32` (fp32
 * only) and `garbled` (`good` with the bits of the q4 weights flipped in
 * `onnx/model_q4.onnx_data`). After each Load the worker replays the reference: the two correct
 * ones say "the same answer as the trainer's", the garbled one names the step that differs and
 * stays usable (a message sent at once is answered), and its "Load fp32 instead" loads the intact
 * fp32, which agrees. The tiny test model from a Hub-like host gets
 * no check and no export.json request. Compare shows the check of each trained model it loads.
 * No request leaves loopback.
 *
 * (This check first caught ONNX Runtime's subgroup flash-attention prefill going wrong on
 * SwiftShader, whose subgroups are 4 wide: src/worker/subgroup-guard.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ROOT,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  inBrowser,
  loadModel,
  screenshot,
  send,
  serveDist,
  serveModels,
  startLoading,
  waitForReply,
  type RunningServer,
} from './harness';
import {
  VENV_PYTHON,
  startTrainingService,
  trainViaApi,
  type TestTrainingService,
} from './training-service';

const AGREED = "Checked on this GPU: the same answer as the trainer's";

let app: RunningServer;
let hub: RunningServer;
let svc: TestTrainingService;
let work: string;
/** export.json of the real export: PyTorch's reference. */
let report: {
  format: number;
  graph: string;
  reference: { tokens: number[]; margins: number[] };
  published: string[];
  variants: Record<string, { tolerance: { clear_margin: number } }>;
};

/** Flips every bit of the q4 file's 4-bit weights (its uint8 initializers) in its external data. */
function garbleQ4(web: string) {
  const script = [
    'import sys, onnx',
    'web = sys.argv[1]',
    "model = onnx.load(f'{web}/onnx/model_q4.onnx', load_external_data=False)",
    'spans = {}',
    'for t in model.graph.initializer:',
    '    ext = {e.key: e.value for e in t.external_data}',
    "    if t.data_type == onnx.TensorProto.UINT8 and 'location' in ext:",
    "        spans.setdefault(ext['location'], []).append((int(ext.get('offset', 0)), int(ext['length'])))",
    "assert spans == {'model_q4.onnx_data': spans.get('model_q4.onnx_data')}, spans",
    'for name, ranges in spans.items():',
    "    path = f'{web}/onnx/{name}'",
    "    data = bytearray(open(path, 'rb').read())",
    '    for offset, length in ranges:',
    '        data[offset:offset + length] = bytes(b ^ 0xFF for b in data[offset:offset + length])',
    "    open(path, 'wb').write(data)",
    '    print(name, sum(length for _, length in ranges))',
  ].join('\n');
  return execFileSync(VENV_PYTHON, ['-c', script, web], { encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  if (!existsSync(join(TINY_MODEL_DIR, 'onnx', 'model.onnx')))
    throw new Error('tests/fixtures/generated/tiny-model is missing: run `npm run tiny-model`');
  work = mkdtempSync(join(tmpdir(), 'reference-check-e2e-'));
  const exported = join(work, 'export');
  execFileSync(VENV_PYTHON, [join(ROOT, 'training', 'make_test_export.py'), exported, 'llama'], {
    stdio: 'ignore',
    env: { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_VERBOSITY: 'error' },
  });
  const web = join(exported, 'llama', 'web');
  report = JSON.parse(readFileSync(join(web, 'export.json'), 'utf8')) as typeof report;
  // The reference this test is about (export.json format 2 and later; 3 today).
  expect(report.reference.tokens.length).toBeGreaterThanOrEqual(16);
  expect(report).toMatchObject({ format: 3 });
  expect(report.published).toEqual(expect.arrayContaining(['q4f16', 'q4', 'fp32']));

  const fp32 = join(work, 'good-fp32');
  cpSync(web, fp32, { recursive: true });
  for (const file of ['model_q4f16', 'model_q4'])
    for (const suffix of ['.onnx', '.onnx_data']) rmSync(join(fp32, 'onnx', file + suffix));
  const garbled = join(work, 'garbled');
  cpSync(web, garbled, { recursive: true });
  expect(garbleQ4(garbled)).toMatch(/^model_q4\.onnx_data \d+$/);

  app = await serveDist();
  hub = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
  svc = await startTrainingService(app.url.replace(/\/$/, ''));
  for (const [name, folder] of [
    ['good', web],
    ['good-fp32', fp32],
    ['garbled', garbled],
  ] as const) {
    const run = await trainViaApi(svc, `out/${name}`, { FIXTURE_TINY_MODEL: folder });
    expect(run).toMatchObject({ state: 'succeeded', model_id: `trained/${name}` });
  }
}, 300_000);

afterAll(async () => {
  await svc?.dispose();
  await app?.close();
  await hub?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const pageUrl = (hash = '') =>
  `${app.url}?trainingUrl=${svc.url}&modelHost=${encodeURIComponent(hub.url)}` +
  `&extraModel=${TINY_MODEL_ID}&extraDtype=fp32&maxTokens=16${hash}`;

/** The chat's model bar's check line, once it has its outcome. */
async function checkLine(page: Page, pattern: RegExp) {
  const line = page.locator('.start-compact [role="status"].reference-check');
  await expect.poll(() => line.textContent(), { timeout: 120_000 }).toMatch(pattern);
  return line;
}

/** Requests for a trained model's files (`/trained/<name>/resolve/main/<file>`). */
const filesOf = (name: string) =>
  svc.modelRequests
    .filter((r) => r.startsWith(`/trained/${name}/resolve/main/`))
    .map((r) => r.slice(`/trained/${name}/resolve/main/`.length));

/**
 * Loads the trained model `name` and waits until the chat is ready with it (its weights were
 * asked for, so the chat has left the previous model's ready state first).
 */
async function loadTrained(page: Page, name: string) {
  await startLoading(page, new RegExp(`^${name} \\(fine-tuned\\)`));
  await expect
    .poll(() => filesOf(name).some((f) => f.startsWith('onnx/')), { timeout: 60_000 })
    .toBe(true);
  await expect
    .poll(() => page.getByRole('textbox', { name: 'Message' }).getAttribute('title'), {
      timeout: 120_000,
    })
    .toBe('Model is ready');
}

describe('checked on this GPU', () => {
  it('fp32 and q4 agree with the trainer; the garbled q4 is named and still answers', async () => {
    const opts = { webgpu: true, viewport: { width: 1280, height: 900 }, noPageErrors: true };
    await inBrowser(pageUrl(), opts, async (browser) => {
      const { page } = browser;
      // The trained models join the picker from GET /models.
      await page
        .getByRole('region', { name: 'Runs' })
        .getByText('garbled', { exact: true })
        .waitFor({
          timeout: 60_000,
        });

      // A model the trainer did not export: no check, and no export.json asked for anywhere.
      await loadModel(page, new RegExp(`^${TINY_MODEL_ID}`));
      expect(await page.locator('.reference-check').count()).toBe(0);
      expect(hub.requests.some((r) => r.includes('export.json'))).toBe(false);

      // fp32 only: fp32 loads and agrees.
      await loadTrained(page, 'good-fp32');
      let line = await checkLine(page, /^✓/);
      expect(await line.textContent()).toBe(
        `✓${AGREED}fp32 · 16 tokens replayed, 16 with a clear lead compared`,
      );
      expect(filesOf('good-fp32')).toContain('export.json');

      // q4f16 first, but SwiftShader has no shader-f16: q4 loads, and agrees.
      await loadTrained(page, 'good');
      line = await checkLine(page, /^✓.*q4 ·/);
      expect(await line.textContent()).toMatch(new RegExp(`^✓${AGREED}q4 · 16 tokens replayed`));
      expect(filesOf('good')).toEqual(
        expect.arrayContaining(['onnx/model_q4.onnx', 'onnx/model_q4.onnx_data', 'export.json']),
      );
      expect(filesOf('good').filter((f) => f.includes('q4f16'))).toEqual([]);

      // The garbled q4: a message sent as soon as the model is ready waits for the replay and is
      // answered; the check names the first step that differs, with the trainer's lead there.
      await loadTrained(page, 'garbled');
      const before = await page.locator('.bubble-assistant').count();
      await send(page, 'What is the capital of France?');
      line = await checkLine(page, /^⚠/);
      const text = (await line.textContent()) ?? '';
      const step = Number(/step (\d+) differs/.exec(text)?.[1]);
      const clear = report.variants.q4?.tolerance.clear_margin ?? Infinity;
      const lead = report.reference.margins[step - 1] ?? 0;
      expect(lead).toBeGreaterThanOrEqual(clear);
      expect(text).toMatch(
        new RegExp(
          `^⚠Checked on this GPU: step ${step} differs from the trainer's answer \\(token \\d+ “.*” instead of ${report.reference.tokens[step - 1]} “.*”, whose lead was ${lead.toFixed(2)}\\)\\. The model stays usable; if its answers look wrong, try the other variant \\(fp32 instead of q4\\)\\.q4 · 16 tokens replayed$`,
        ),
      );
      const reply = await waitForReply(page, before);
      expect(reply.length).toBeGreaterThan(0);
      // A warning, not an error: a status (no alert), amber, and the model stays ready.
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await line.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(120, 53, 15)');
      expect(await page.getByRole('textbox', { name: 'Message' }).getAttribute('title')).toBe(
        'Model is ready',
      );
      const path = await screenshot(page, 'reference-check/chat-garbled-q4');
      console.log(`screenshot: ${path}`);
      // Near the model: the line fits the chat column (wraps, no sideways overflow).
      const box = await line.boundingBox();
      const column = await page.locator('.chat-column').boundingBox();
      expect(box && column && box.x + box.width <= column.x + column.width + 1).toBe(true);
      expect(await line.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

      // The advice as an action: "Load fp32 instead" loads the same run's fp32 (its bits intact),
      // which is checked in turn and agrees; the conversation stays.
      const load = page.getByRole('button', { name: 'Load fp32 instead' });
      const loadBox = await load.boundingBox();
      expect(loadBox && column && loadBox.x + loadBox.width <= column.x + column.width + 1).toBe(
        true,
      );
      // On a phone (390 px) the warning and its button wrap within the page: no sideways scroll.
      await page.setViewportSize({ width: 390, height: 844 });
      await load.scrollIntoViewIfNeeded();
      await screenshot(page, 'reference-check/chat-garbled-q4-390');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      );
      const phoneBox = await load.boundingBox();
      expect(phoneBox && phoneBox.x >= 0 && phoneBox.x + phoneBox.width <= 390).toBe(true);
      await page.setViewportSize({ width: 1280, height: 900 });
      await load.focus();
      await page.keyboard.press('Enter');
      await expect
        .poll(() => filesOf('garbled').includes('onnx/model.onnx'), { timeout: 60_000 })
        .toBe(true);
      line = await checkLine(page, /^✓.*fp32 ·/);
      expect(await line.textContent()).toBe(
        `✓${AGREED}fp32 · 16 tokens replayed, 16 with a clear lead compared`,
      );
      expect(await page.locator('.bubble-assistant').count()).toBeGreaterThan(before);
      // inBrowser then asserts that no request left loopback: the Hub never heard of these models.
    });
  }, 600_000);

  it('Compare shows the check of each trained model it loads', async () => {
    const opts = { webgpu: true, viewport: { width: 1280, height: 1000 }, noPageErrors: true };
    await inBrowser(pageUrl('#/compare'), opts, async ({ page }) => {
      await page.getByRole('heading', { name: 'Compare models' }).waitFor();
      const a = page.getByLabel('Model A (before)');
      await expect
        .poll(() => a.locator('option[value="trained/good"]').count(), { timeout: 60_000 })
        .toBe(1);
      await a.selectOption('trained/good');
      await page.getByLabel('Model B (after)').selectOption('trained/garbled');
      await page.getByLabel('Questions I paste or type').check();
      await page
        .getByRole('textbox', { name: /^Questions \(one per line/ })
        .fill('What is the capital of France?\tParis.');
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      await expect
        .poll(() => page.getByText(/^The chat's model is now/).count(), { timeout: 240_000 })
        .toBe(1);
      const progress = page.getByRole('region', { name: 'Progress' });
      const statuses = progress.getByRole('status');
      expect(await statuses.allTextContents()).toEqual([
        expect.stringMatching(new RegExp(`^✓A: ${AGREED}q4 · `)),
        expect.stringMatching(
          /^⚠B: Checked on this GPU: step \d+ differs from the trainer's answer/,
        ),
      ]);
      await screenshot(page, 'reference-check/compare', { fullPage: true });
    });
  }, 600_000);
});
