/**
 * Train → chat in Chromium: the built app against the real training service (in this process, on
 * a free loopback port, fixture trainers as its only script root). The fixture trainer
 * (service/test/fixtures/hf-trainer.mjs) prints what a Hugging Face Trainer prints (a tqdm bar
 * and `{'loss': …}` dicts) at FIXTURE_STEP_MS per step, then copies the repo's tiny model into
 * `<output_dir>/web/`. The page starts the run, is reloaded mid-run and finds it again, draws the
 * loss curve, loads the result with "Load in chat" (files from the service's /trained/ routes),
 * chats with it, and finds it in the model picker after a reload. Then the bad inputs: a web/
 * folder without weights or tokenizer, a reused output folder, the service stopped mid-load.
 * Every non-loopback request is aborted and asserted absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunInfo } from '../../src/shared/training-api';
import {
  ROOT,
  SCREENSHOT_DIR,
  TINY_MODEL_DIR,
  ask,
  launch,
  serveDist,
  type Browser,
  type RunningServer,
} from './harness';
import {
  BASE_MODEL,
  TRAINER,
  listedModels,
  startTrainingService,
  trainViaApi,
  type TestTrainingService,
} from './training-service';

const DOCS = join(ROOT, 'docs');
const VIEWPORT = { width: 1440, height: 900 };
/** 120 steps (the panel's max_steps) at 120 ms: about 15 s, room for a reload mid-run. */
const STEP_MS = '120';

let app: RunningServer;
const services: TestTrainingService[] = [];

async function startService() {
  const svc = await startTrainingService(app.url.replace(/\/$/, ''));
  services.push(svc);
  return svc;
}

function pageUrl(svc: TestTrainingService) {
  return `${app.url}?trainingUrl=${svc.url}&maxTokens=16`;
}

async function fillForm(browser: Browser, outputDir: string) {
  const panel = browser.page.getByRole('region', { name: 'Fine-tuning' });
  await panel.waitFor({ timeout: 60_000 });
  await panel.getByLabel('Script path').fill(TRAINER);
  await panel.getByLabel('Output directory').fill(outputDir);
  await panel.getByLabel('Data file path').fill('data/input_data.json');
  await panel.getByLabel('Base model').fill(BASE_MODEL);
  return panel;
}

async function shot(browser: Browser, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await browser.page.screenshot({ path });
  // UPDATE_DOCS_SCREENSHOTS=1 refreshes the README's copies in docs/.
  if (process.env.UPDATE_DOCS_SCREENSHOTS) copyFileSync(path, join(DOCS, `${name}.png`));
}

beforeAll(async () => {
  if (!existsSync(join(TINY_MODEL_DIR, 'onnx', 'model.onnx')))
    throw new Error('tests/fixtures/generated/tiny-model is missing: run `npm run tiny-model`');
  app = await serveDist();
});

afterAll(async () => {
  for (const svc of services) await svc.dispose();
  await app?.close();
});

describe('train → chat in Chromium', () => {
  it('start a run, reload mid-run, loss curve, Load in chat, a reply, the model in the picker after a reload', async () => {
    const svc = await startService();
    process.env.FIXTURE_STEP_MS = STEP_MS;
    const browser = await launch({ webgpu: true, viewport: VIEWPORT });
    try {
      const { page } = browser;
      await page.goto(pageUrl(svc));
      let panel = await fillForm(browser, 'out/tiny-chat');
      await panel.getByRole('button', { name: 'Train Model' }).click();
      await panel.getByRole('button', { name: 'Training...' }).waitFor();

      // Mid-run: the loss curve with the last loss beside it.
      const curve = panel.getByRole('img', { name: /^Training loss by step: \d+ points/ });
      await curve.waitFor({ timeout: 30_000 });
      expect(await panel.getByText('Last loss').isVisible()).toBe(true);
      expect(svc.service.runs.list()[0]?.state).toBe('running');

      // Reload: the page finds the run on the service, without pressing Train Model.
      await page.reload();
      panel = page.getByRole('region', { name: 'Fine-tuning' });
      const bar = panel.getByRole('progressbar', { name: 'Training progress' });
      await bar.waitFor({ timeout: 60_000 });
      expect(await panel.getByRole('button', { name: 'Training...' }).isDisabled()).toBe(true);
      expect(await panel.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true);
      await expect
        .poll(() => panel.locator('pre').textContent(), { timeout: 10_000 })
        .toMatch(/'loss': \d/);
      await curve.waitFor({ timeout: 30_000 });
      const mid = Number(await bar.getAttribute('aria-valuenow'));
      expect(mid).toBeGreaterThan(0);
      expect(mid).toBeLessThan(100);
      // Loss falls as the fixture prints it: 2.5 / (1 + step / 4).
      const lossText = await panel.locator('.training-stats dd').first().textContent();
      expect(Number(lossText)).toBeGreaterThan(0);
      expect(Number(lossText)).toBeLessThan(2.5);
      await curve.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(browser, 'screenshot-training-loss');

      await panel.getByText('✅ Training finished!').waitFor({ timeout: 60_000 });
      const [run] = svc.service.runs.list();
      expect(run).toMatchObject({ state: 'succeeded', current: 120, total: 120 });
      expect(run?.model_id).toBe('trained/tiny-chat');
      expect(await curve.getAttribute('aria-label')).toMatch(/last loss 0\.0\d+ at step 120$/);

      // Load in chat: progress bars, then Ready!, files from the training service.
      await panel.getByRole('button', { name: 'Load in chat', exact: true }).click();
      const fileBar = page.getByRole('progressbar', { name: 'onnx/model.onnx' });
      await expect
        .poll(() => fileBar.textContent(), { timeout: 30_000 })
        .toMatch(/^onnx\/model\.onnx \(\d+\.\d{2}% of \d+\.\d{2}(kB|MB)\)$/);
      await expect
        .poll(() => page.getByText('Ready!').isVisible(), { timeout: 120_000 })
        .toBe(true);
      expect(svc.modelRequests).toContain('/trained/tiny-chat/resolve/main/onnx/model.onnx');
      expect(await page.getByRole('button', { name: /^Model:/ }).textContent()).toContain(
        'tiny-chat (fine-tuned)',
      );

      // A reply from the trained model (random weights: any non-empty text) with its speed line.
      const reply = await ask(page, 'Hello, fine-tuned model');
      expect(reply.trim().length).toBeGreaterThan(0);
      expect(await page.locator('.speed-detail').textContent()).toMatch(
        /Decode: \d+\.\d{2} tokens\/s/,
      );
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(browser, 'screenshot-trained-chat');

      // After a reload the trained model is in the picker (from GET /models).
      await page.reload();
      await page.getByRole('button', { name: /^Model:/ }).click();
      await page
        .getByRole('option', { name: /^tiny-chat \(fine-tuned\)/ })
        .waitFor({ timeout: 30_000 });
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      delete process.env.FIXTURE_STEP_MS;
      await browser.close();
    }
  });

  it('web/ without weights or tokenizer: not listed, the run says why; a reused output folder is refused', async () => {
    const svc = await startService();
    const noTokenizer = await trainViaApi(svc, 'out/no-tokenizer', {
      FIXTURE_WEB: 'no-tokenizer',
    });
    expect(noTokenizer).toMatchObject({ state: 'succeeded', model_id: null });
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(pageUrl(svc));
      const panel = await fillForm(browser, 'out/no-weights');
      process.env.FIXTURE_STEP_MS = '2';
      process.env.FIXTURE_WEB = 'no-weights';
      await panel.getByRole('button', { name: 'Train Model' }).click();
      await panel.getByText('✅ Training finished!').waitFor({ timeout: 60_000 });
      await expect
        .poll(() => panel.getByText(/is not offered/).textContent(), { timeout: 10_000 })
        .toBe('“Load in chat” is not offered: web/ lacks the weights (no onnx/model*.onnx)');
      expect(await panel.getByRole('button', { name: /Load in chat/ }).count()).toBe(0);
      // The Runs list says why for the other one too.
      await panel
        .getByText('No “Load in chat”: web/ lacks the tokenizer (tokenizer.json)')
        .waitFor({ timeout: 10_000 });
      expect(await listedModels(svc)).toEqual([]);
      await page.getByRole('button', { name: /^Model:/ }).click();
      expect(await page.getByRole('option', { name: /fine-tuned/ }).count()).toBe(0);
      await page.keyboard.press('Escape');

      // The same output folder again: refused with the service's words; the first result kept.
      const folder = join(svc.base, 'out', 'no-weights');
      const before = readdirSync(folder, { recursive: true }).sort();
      const [first] = svc.service.runs.list().filter((r: RunInfo) => r.output_dir === folder);
      await panel.getByRole('button', { name: 'Train Model' }).click();
      const alert = panel.getByRole('alert');
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toBe(
        `Training did not start. Output folder ${folder} already holds the result of run ${first?.id} (succeeded); choose another output directory or delete that folder first.`,
      );
      expect(svc.service.runs.list().filter((r: RunInfo) => r.output_dir === folder)).toHaveLength(
        1,
      );
      expect(readdirSync(folder, { recursive: true }).sort()).toEqual(before);
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      delete process.env.FIXTURE_STEP_MS;
      delete process.env.FIXTURE_WEB;
      await browser.close();
    }
  });

  it('the service stops while the model loads: the load error in red, nothing else lost', async () => {
    const svc = await startService();
    await trainViaApi(svc, 'out/stop-me', {});
    expect((await listedModels(svc)).map((m) => m.id)).toEqual(['trained/stop-me']);
    let requested = (): void => undefined;
    const modelRequested = new Promise<void>((ok) => (requested = ok));
    // The ONNX request hangs until the service is stopped under it.
    svc.onModelFile = () => {
      requested();
      return new Promise<void>(() => undefined);
    };
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(pageUrl(svc));
      const panel = page.getByRole('region', { name: 'Fine-tuning' });
      const runs = panel.getByRole('region', { name: 'Runs' });
      await runs.getByText('stop-me').waitFor({ timeout: 60_000 });
      // Things the failure must not take: a half-written dataset and the training form.
      await page.getByLabel('Name or title').fill('Harbour notes');
      await page.getByLabel('Sample text').fill('The harbour opens at six.');
      await panel.getByLabel('Output directory').fill('out/next-run');

      await runs.getByRole('button', { name: 'Load in chat: stop-me' }).click();
      await modelRequested;
      svc.service.app.server.closeAllConnections();
      await svc.service.close();

      const alert = page.locator('.load-error[role="alert"]');
      await expect
        .poll(() => alert.textContent(), { timeout: 60_000 })
        .toMatch(/^Unable to load model due to the following error:/);
      expect(await alert.evaluate((el) => getComputedStyle(el).color)).toMatch(
        /^rgb\((1\d\d|2\d\d), \d{1,2}, \d{1,2}\)$/,
      );
      expect(await alert.textContent()).toContain(
        `Network error while downloading the model from ${svc.url}/ (is that server still running?)`,
      );
      await alert.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(browser, 'train-to-chat-service-stopped');
      expect(await page.getByRole('button', { name: 'Retry' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: /^Model:/ }).textContent()).toContain(
        'stop-me (fine-tuned)',
      );
      expect(await page.getByLabel('Name or title').inputValue()).toBe('Harbour notes');
      expect(await page.getByLabel('Sample text').inputValue()).toBe('The harbour opens at six.');
      expect(await panel.getByLabel('Output directory').inputValue()).toBe('out/next-run');
      expect(await runs.getByText('stop-me').isVisible()).toBe(true);
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
