/**
 * Fine-tuning end to end in Chromium: the built app against the real training service (in this
 * process, on a free loopback port, with the fixture trainer scripts as its only script root and
 * the app's origin allowed), from 'Train Model' to '✅ Training finished!'. The page finds the
 * service through `?trainingUrl=`; every non-loopback request is aborted and asserted absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOT_DIR, launch, serveDist, type RunningServer } from './harness';
import { FIXTURES, startTrainingService, type TestTrainingService } from './training-service';

let app: RunningServer;
let svc: TestTrainingService;

beforeAll(async () => {
  app = await serveDist();
  svc = await startTrainingService(app.url.replace(/\/$/, ''));
  // 120 steps at 40 ms: about 5 s, so the 2-second polls see the run in progress.
  process.env.FIXTURE_STEP_MS = '40';
});

afterAll(async () => {
  delete process.env.FIXTURE_STEP_MS;
  await svc?.dispose();
  await app?.close();
});

describe('fine-tuning in Chromium', () => {
  it("Train Model → 'Training...' with progress → '✅ Training finished!' on the real service", async () => {
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(`${app.url}?trainingUrl=${svc.url}`);
      const panel = page.getByRole('region', { name: 'Fine-tuning' });
      await panel.waitFor({ timeout: 60_000 });
      await panel.getByLabel('Script path').fill(join(FIXTURES, 'args.mjs'));
      await panel.getByLabel('Output directory').fill('out/lora');
      await panel.getByLabel('Data file path').fill('data/input_data.json');
      await panel.getByLabel('Base model').fill('meta-llama/Llama-3.2-3B-Instruct');

      await panel.getByRole('button', { name: 'Train Model' }).click();
      const busy = panel.getByRole('button', { name: 'Training...' });
      await busy.waitFor();
      expect(await busy.isDisabled()).toBe(true);

      const bar = panel.getByRole('progressbar', { name: 'Training progress' });
      await expect
        .poll(async () => Number((await bar.getAttribute('aria-valuenow')) ?? 0), {
          timeout: 30_000,
        })
        .toBeGreaterThan(0);
      const text = await bar.textContent();
      expect(text).toMatch(/^\d{1,3}\.\d\d%$/);

      await panel.getByText('✅ Training finished!').waitFor({ timeout: 60_000 });
      expect(await panel.getByRole('button', { name: 'Train Model' }).isEnabled()).toBe(true);
      expect(await panel.locator('pre').textContent()).toMatch(/step 120\/120/);
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'training-finished.png') });

      // The run the service knows about is the one the page started, with the spec's parameters.
      const [run] = svc.service.runs.list();
      expect(run).toMatchObject({ state: 'succeeded', exit_code: 0, current: 120, total: 120 });
      expect(svc.seenOrigins).toEqual(new Set([app.url.replace(/\/$/, '')]));
      expect(browser.foreignRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('a script that fails at once: shown as failed with its exit code and message', async () => {
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(`${app.url}?trainingUrl=${svc.url}`);
      const panel = page.getByRole('region', { name: 'Fine-tuning' });
      await panel.waitFor({ timeout: 60_000 });
      await panel.getByLabel('Script path').fill(join(FIXTURES, 'fail.mjs'));
      await panel.getByLabel('Output directory').fill('out/failing-run');
      await panel.getByLabel('Data file path').fill('data/input_data.json');
      await panel.getByRole('button', { name: 'Train Model' }).click();
      // The summary leads with the cause (the script's error line), not only the exit code.
      const failed = panel.getByRole('alert');
      await failed.getByText('Training failed (exit code 3):').waitFor({ timeout: 30_000 });
      expect(await failed.textContent()).toContain('CUDA is not available on this machine');
      expect(await panel.locator('pre').textContent()).toContain(
        'error: CUDA is not available on this machine',
      );
    } finally {
      await browser.close();
    }
  });

  // Regression: a refused start was a native window.alert.
  it('a refused start (script outside the roots): the server text in the panel, no dialog', async () => {
    const browser = await launch({ webgpu: true });
    try {
      const { page } = browser;
      await page.goto(`${app.url}?trainingUrl=${svc.url}`);
      const panel = page.getByRole('region', { name: 'Fine-tuning' });
      await panel.waitFor({ timeout: 60_000 });
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await panel.getByLabel('Script path').fill('/etc/hostname');
      await panel.getByLabel('Data file path').fill('data/input_data.json');
      await panel.getByRole('button', { name: 'Train Model' }).click();
      const alert = panel.getByRole('alert');
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toMatch(
        /^Training did not start\. script_path "\/etc\/hostname" is outside the allowed folders/,
      );
      await panel.getByRole('button', { name: 'Train Model' }).waitFor();
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
