/**
 * 'Format Input' in Debian Chromium against the app built in mock mode (MSW's service worker
 * answers the hosted chat completion): Format Input → table → edit a row → download, and the
 * downloaded input_data.json checked. The token field takes any non-empty string in mock mode;
 * `mock-<scenario>` picks an error scenario (mocks/dataset-handlers.ts).
 *
 * Needs: npx vite build --mode mock --outDir dist-mock
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ROOT,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  inBrowser,
  loadModel,
  screenshot,
  serveDir,
  serveModels,
  type RunningServer,
} from './harness';

/** `DATASET_E2E_DIST` may point at another mock-mode build of the panel. */
const DIST_MOCK = process.env.DATASET_E2E_DIST ?? join(ROOT, 'dist-mock');

let app: RunningServer;
let models: RunningServer;
beforeAll(async () => {
  app = await serveDir(DIST_MOCK);
  models = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
});
afterAll(async () => {
  await app?.close();
  await models?.close();
});

/** Fills the hosted path's access token (the mock reads a scenario from it) once the panel shows. */
async function fillToken(page: Page, token: string): Promise<void> {
  const field = page.getByLabel('Hugging Face access token');
  await field.waitFor({ timeout: 30_000 });
  await field.fill(token);
}

describe("'Format Input' in Chromium (mock mode)", () => {
  it('Format Input → table → edit a row → download input_data.json', async () => {
    // The hosted call is answered by the mock: nothing leaves the machine (inBrowser checks).
    await inBrowser(app.url, { webgpu: true }, async ({ page }) => {
      await fillToken(page, 'mock-token');
      await page.getByLabel('Number of pairs').fill('3');
      await page.getByRole('button', { name: 'Format Input', exact: true }).click();

      const table = page.getByRole('table');
      await table.waitFor({ timeout: 30_000 });
      expect(await page.getByText('3 pairs', { exact: true }).isVisible()).toBe(true);
      const prompt2 = page.getByLabel('Prompt 2', { exact: true });
      expect(await prompt2.inputValue()).toContain('Port Elsby Lantern Festival');
      await prompt2.fill('When is the Port Elsby Lantern Festival held?');
      await page
        .getByLabel('Completion 2', { exact: true })
        .fill('On the first Saturday of October. It began in 1894.');
      await page.getByRole('button', { name: 'Delete pair 3' }).click();
      await screenshot(page, 'dataset-review', { fullPage: true });

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download input_data.json' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('input_data.json');
      const path = await download.path();
      const data = JSON.parse(readFileSync(path, 'utf8')) as Array<Record<string, string>>;
      expect(data).toHaveLength(2);
      expect(data[1]).toEqual({
        prompt: 'When is the Port Elsby Lantern Festival held?',
        completion: 'On the first Saturday of October. It began in 1894.',
      });
      expect(data[0]?.prompt).toContain('Port Elsby Lantern Festival');
      expect(Object.keys(data[0] ?? {})).toEqual(['prompt', 'completion']);
    });
  });

  it('a refused token: the error is shown with its message, never the token', async () => {
    await inBrowser(app.url, { webgpu: true }, async ({ page, consoleErrors }) => {
      await fillToken(page, 'mock-401');
      await page.getByRole('button', { name: 'Format Input', exact: true }).click();
      const alert = page.locator('.dataset-failure');
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toContain('The access token was refused (HTTP 401).');
      expect(await alert.textContent()).not.toContain('mock-401');
      expect(consoleErrors.join('\n')).not.toContain('mock-401');
    });
  });

  it('the local-model path: the tiny model in the browser, the same parsing and validation', async () => {
    const url = `${app.url}?modelHost=${encodeURIComponent(models.url)}&extraModel=${TINY_MODEL_ID}&maxTokens=8`;
    await inBrowser(url, { webgpu: true }, async ({ page }) => {
      const local = page.getByRole('radio', { name: 'Generate with the loaded local model' });
      await local.waitFor({ timeout: 30_000 });
      expect(await local.isDisabled()).toBe(true);
      await loadModel(page, /tiny-random-llama/);
      await expect.poll(() => local.isEnabled()).toBe(true);
      await local.check();
      expect(await page.getByLabel('Hugging Face access token').count()).toBe(0);
      // A short text keeps the prefill short on SwiftShader.
      await page
        .getByLabel('Sample text')
        .fill('Port Elsby holds a lantern festival every October.');
      await page.getByLabel('Number of pairs').fill('1');
      await page.getByRole('button', { name: 'Format Input', exact: true }).click();
      // The tiny model has random weights and never writes an end token (make-tiny-model biases
      // them away), so it writes exactly maxTokens=8 tokens of random text: the one specified
      // outcome is the parser's "not valid JSON" failure, with the raw reply downloadable.
      // Regression: this test used to accept a table, any failure or a cancel as success.
      const failure = page.locator('.dataset-failure');
      await failure.waitFor({ timeout: 180_000 });
      expect(await page.locator('.dataset-table').count()).toBe(0);
      expect((await failure.textContent()) ?? '').toMatch(/The model's reply is not valid JSON/);
      const raw = page.getByRole('button', { name: 'Download raw output' });
      const [download] = await Promise.all([page.waitForEvent('download'), raw.click()]);
      expect(readFileSync(await download.path(), 'utf8').trim().length).toBeGreaterThan(0);
    });
  });
});
