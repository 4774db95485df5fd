/**
 * Fine-tuning end to end in Chromium: the built app against the real training service (in this
 * process, on a free loopback port, with the fixture trainer scripts as its only script root and
 * the app's origin allowed), from 'Train Model' to '✅ Training finished!'. The page finds the
 * service through `?trainingUrl=`; every non-loopback request is aborted and asserted absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { inBrowser, screenshot, serveDist, type RunningServer } from './harness';
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

/** The app with the service's address, in Chromium: its Fine-tuning panel, shown. */
async function trainingPanel(page: Page): Promise<Locator> {
  const panel = page.getByRole('region', { name: 'Fine-tuning' });
  await panel.waitFor({ timeout: 60_000 });
  return panel;
}

/** Fills the panel's run fields that are given. */
async function fillRun(
  panel: Locator,
  fields: { script: string; output?: string; data: string; base?: string },
): Promise<void> {
  await panel.getByLabel('Script path').fill(fields.script);
  if (fields.output) await panel.getByLabel('Output directory').fill(fields.output);
  await panel.getByLabel('Data file path').fill(fields.data);
  if (fields.base) await panel.getByLabel('Base model', { exact: true }).fill(fields.base);
}

const inApp = (steps: (page: Page) => Promise<void>) =>
  inBrowser(`${app.url}?trainingUrl=${svc.url}`, { webgpu: true }, ({ page }) => steps(page));

describe('fine-tuning in Chromium', () => {
  it("Train Model → 'Training...' with progress → '✅ Training finished!' on the real service", async () => {
    await inApp(async (page) => {
      const panel = await trainingPanel(page);
      await fillRun(panel, {
        script: join(FIXTURES, 'args.mjs'),
        output: 'out/lora',
        data: 'data/input_data.json',
        base: 'meta-llama/Llama-3.2-3B-Instruct',
      });

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
      await screenshot(page, 'training-finished');

      // The run the service knows about is the one the page started, with PRODUCT.md's parameters.
      const [run] = svc.service.runs.list();
      expect(run).toMatchObject({ state: 'succeeded', exit_code: 0, current: 120, total: 120 });
      expect(svc.seenOrigins).toEqual(new Set([app.url.replace(/\/$/, '')]));
    });
  });

  it('a script that fails at once: shown as failed with its exit code and message', async () => {
    await inApp(async (page) => {
      const panel = await trainingPanel(page);
      await fillRun(panel, {
        script: join(FIXTURES, 'fail.mjs'),
        output: 'out/failing-run',
        data: 'data/input_data.json',
      });
      await panel.getByRole('button', { name: 'Train Model' }).click();
      // The summary leads with the cause (the script's error line), not only the exit code.
      const failed = panel.getByRole('alert');
      await failed.getByText('Training failed (exit code 3):').waitFor({ timeout: 30_000 });
      expect(await failed.textContent()).toContain('CUDA is not available on this machine');
      expect(await panel.locator('pre').textContent()).toContain(
        'error: CUDA is not available on this machine',
      );
    });
  });

  // Regression: a refused start was a native window.alert.
  it('a refused start (script outside the roots): the server text in the panel, no dialog', async () => {
    await inApp(async (page) => {
      const panel = await trainingPanel(page);
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await fillRun(panel, { script: '/etc/hostname', data: 'data/input_data.json' });
      await panel.getByRole('button', { name: 'Train Model' }).click();
      const alert = panel.getByRole('alert');
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toMatch(
        /^Training did not start\. script_path "\/etc\/hostname" is outside the allowed folders/,
      );
      await panel.getByRole('button', { name: 'Train Model' }).waitFor();
      expect(dialogs).toEqual([]);
    });
  });
});
