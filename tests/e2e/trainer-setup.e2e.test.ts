/**
 * The trainer's set-up as a newcomer meets it, in Chromium at 1440 and 390 px: a service whose
 * trainer packages are missing offers **Set up the trainer**; its output (a fixture set-up that
 * prints a 3,000-character line) wraps inside its box and the page never scrolls sideways, during
 * the set-up or after it, when the output has folded away into a closed <details>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { inBrowser, screenshot, serveDist, type RunningServer } from './harness';
import { FIXTURES, startTrainingService, type TestTrainingService } from './training-service';

let app: RunningServer;

beforeAll(async () => {
  app = await serveDist();
});

afterAll(async () => {
  await app?.close();
});

/** A service of its own for each test: a set-up that succeeded is remembered by the service. */
const serviceWithoutTrainer = (): Promise<TestTrainingService> =>
  startTrainingService(app.url.replace(/\/$/, ''), {
    config: {
      // No interpreter: every package reads as missing, so the panel offers the set-up.
      python: '/nonexistent/python3',
      setupCommand: [process.execPath, join(FIXTURES, 'setup-long.mjs')],
    },
  });

const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe('Set up the trainer: its output stays inside the page', () => {
  for (const width of [1440, 390]) {
    it(`at ${width} px: no sideways scroll during or after a set-up with a 3,000-character line`, async () => {
      const svc = await serviceWithoutTrainer();
      await inBrowser(
        `${app.url}?trainingUrl=${svc.url}`,
        { webgpu: true, viewport: { width, height: 900 } },
        async ({ page }) => {
          const panel = page.getByRole('region', { name: 'Fine-tuning' });
          await panel.waitFor({ timeout: 60_000 });
          const button = panel.getByRole('button', { name: 'Set up the trainer' });
          await button.waitFor({ timeout: 30_000 });
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          await button.click();
          // While it runs: the output is shown open, the long line wrapped inside its box.
          const running = panel.getByLabel('Set-up output');
          await running.getByText(/Looking in links/).waitFor({ timeout: 30_000 });
          await panel.getByText('Setting up the trainer…').first().waitFor();
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          await screenshot(page, `trainer-setup-running-${width}`);
          await panel.getByText('The trainer is set up.').waitFor({ timeout: 30_000 });
          const details = panel.locator('details.trainer-setup-output');
          await details.waitFor();
          expect(await details.getAttribute('open')).toBeNull();
          expect(await details.locator('summary').textContent()).toBe('Set-up output (3 lines)');
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          await screenshot(page, `trainer-setup-folded-${width}`);
          // Opened, the long line wraps inside its box.
          await details.locator('summary').click();
          const log = details.getByLabel('Set-up output');
          await log.waitFor();
          expect(await log.textContent()).toContain('Looking in links: https://');
          const box = await log.boundingBox();
          expect(box?.width ?? Infinity).toBeLessThanOrEqual(width);
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          await screenshot(page, `trainer-setup-open-${width}`);
        },
      ).finally(() => svc.dispose());
    });
  }
});
