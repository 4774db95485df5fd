/**
 * Compare in Chromium with the tiny random-weight model served under two ids: the same model as
 * A and B on pasted questions (said on screen, loaded once), a second comparison stopped midway
 * (finished rows stay, Continue offered), JSON export whose scores equal the table's, and after a
 * reload both evaluations in the saved list, one opened again.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TINY_MODEL_DIR, TINY_MODEL_ID, inBrowser, screenshot, serveAppAndModels } from './harness';

const COPY_ID = 'local/tiny-copy';
const servers = serveAppAndModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR, [COPY_ID]: TINY_MODEL_DIR });

const QUESTIONS = [
  'What is the capital of France?\tParis is the capital of France.',
  'Name a primary colour.\tRed is a primary colour.',
  'How many legs has a spider?\tA spider has eight legs.',
].join('\n');

interface ExportedRow {
  prompt: string;
  scoreA: number | null;
  scoreB: number | null;
  a: { text: string } | null;
  b: { text: string } | null;
}

describe('Compare', () => {
  it('compares the tiny model with itself, stops a second run, exports JSON, finds both after a reload', async () => {
    const url = servers.url(`&extraModel=${TINY_MODEL_ID},${COPY_ID}&maxTokens=12#/compare`);
    const options = { webgpu: true, viewport: { width: 1440, height: 1000 }, noPageErrors: true };
    await inBrowser(url, options, async ({ page }) => {
      await page.getByRole('heading', { name: 'Compare models' }).waitFor();
      expect(
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Compare' })
          .getAttribute('aria-current'),
      ).toBe('page');

      // The same model as A and B: allowed, and said on screen.
      await page.getByLabel('Model A (before)').selectOption(TINY_MODEL_ID);
      await page.getByLabel('Model B (after)').selectOption(TINY_MODEL_ID);
      await expect.poll(() => page.getByText('A and B are the same model').count()).toBe(1);
      await page.getByLabel('Questions I paste or type').check();
      await page.getByRole('textbox', { name: /^Questions \(one per line/ }).fill(QUESTIONS);
      await expect
        .poll(() => page.getByText('3 questions, 3 with a reference answer').count())
        .toBe(1);
      await page.getByRole('button', { name: 'Compare', exact: true }).click();

      const table = page.getByRole('table');
      await expect
        .poll(() => page.getByText(/^The chat's model is now/).count(), { timeout: 180_000 })
        .toBe(1);
      expect(await table.locator('tbody tr').count()).toBe(3);
      // Same weights, greedy: B answers exactly as A, so no row has B closer.
      await expect.poll(() => page.getByText('B closer on 0 of 3').count()).toBe(1);
      const answersA = await table.locator('tbody tr td:nth-child(4)').allTextContents();
      const answersB = await table.locator('tbody tr td:nth-child(5)').allTextContents();
      expect(answersB).toEqual(answersA);

      // The score's definition is one click away.
      await page.getByText('How answers are scored (ROUGE-L F1)').click();
      await expect.poll(() => page.getByText(/longest common subsequence/).isVisible()).toBe(true);

      // Export JSON: the table's numbers are the JSON's.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export JSON' }).click(),
      ]);
      const file = await download.path();
      const exported = JSON.parse(readFileSync(file, 'utf8')) as {
        a: { id: string };
        b: { id: string };
        settings: { temperature: number; maxNewTokens: number };
        rows: ExportedRow[];
        summary: { bCloser: number; compared: number };
      };
      expect(exported.a.id).toBe(TINY_MODEL_ID);
      expect(exported.b.id).toBe(TINY_MODEL_ID);
      expect(exported.settings).toMatchObject({ temperature: 0, maxNewTokens: 12 });
      expect(exported.rows).toHaveLength(3);
      const scoresA = await table.locator('tbody tr td:nth-child(6)').allTextContents();
      const scoresB = await table.locator('tbody tr td:nth-child(7)').allTextContents();
      expect(scoresA).toEqual(exported.rows.map((r) => r.scoreA?.toFixed(3)));
      expect(scoresB).toEqual(exported.rows.map((r) => r.scoreB?.toFixed(3)));
      expect(exported.summary).toMatchObject({ bCloser: 0, compared: 3 });

      // The README's screenshot (UPDATE_DOCS_SCREENSHOTS=1 refreshes its copy in docs/).
      await screenshot(page, 'screenshot-compare', { fullPage: true, docs: true });

      // A second comparison, two ids of the tiny model, stopped after A's first answer.
      await page.getByLabel('Model B (after)').selectOption(COPY_ID);
      await page
        .getByRole('textbox', { name: /^Questions \(one per line/ })
        .fill(
          Array.from({ length: 8 }, (_, i) => `Question ${i + 1}?\tAnswer ${i + 1}.`).join('\n'),
        );
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      await expect
        .poll(() => page.getByText(/^A: .* — [1-7] of 8 answered/).count(), { timeout: 120_000 })
        .toBe(1);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('button', { name: 'Continue' }).waitFor({ timeout: 60_000 });
      const answeredA = await table
        .locator('tbody tr td:nth-child(4)')
        .evaluateAll((cells) => cells.filter((c) => c.textContent !== '—').length);
      expect(answeredA).toBeGreaterThanOrEqual(1);
      expect(answeredA).toBeLessThan(8);
      expect(await table.locator('tbody tr').count()).toBe(8);

      // Reload: both evaluations are saved; the first opens again with its table.
      await page.reload();
      await page.getByRole('heading', { name: 'Saved evaluations' }).waitFor();
      await expect
        .poll(() => page.locator('.compare-saved-list li').count(), { timeout: 30_000 })
        .toBe(2);
      await page
        .getByRole('button', {
          name: `${TINY_MODEL_ID} (fp32, local) vs ${TINY_MODEL_ID} (fp32, local)`,
          exact: true,
        })
        .click();
      await expect.poll(() => page.getByText(/^Showing the saved evaluation/).count()).toBe(1);
      await expect.poll(() => page.getByRole('table').locator('tbody tr').count()).toBe(3);
      expect(
        await page.getByRole('table').locator('tbody tr td:nth-child(6)').allTextContents(),
      ).toEqual(scoresA);
    });
  });

  // Compare heard no heartbeat: a dead worker was noticed after 120 s (the chat's rule is 10 s).
  it('a worker that dies mid-answer: Compare says so within 15 s, as the chat does', async () => {
    const url = servers.url(`&extraModel=${TINY_MODEL_ID},${COPY_ID}&maxTokens=400&debug#/compare`);
    await inBrowser(url, { webgpu: true }, async ({ page }) => {
      await page.getByRole('heading', { name: 'Compare models' }).waitFor();
      await page.getByLabel('Model A (before)').selectOption(TINY_MODEL_ID);
      await page.getByLabel('Model B (after)').selectOption(COPY_ID);
      await page.getByLabel('Questions I paste or type').check();
      await page
        .getByRole('textbox', { name: /^Questions \(one per line/ })
        .fill(Array.from({ length: 8 }, (_, i) => `Count to ${i + 100}.`).join('\n'));
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      // Mid-answer: A's first answer is streaming ("Writing: …").
      await expect
        .poll(() => page.locator('.compare-partial').textContent(), { timeout: 120_000 })
        .toMatch(/^Writing: ./);
      // The worker closes itself (no error event): only its silence tells.
      await page.evaluate(() =>
        (window as unknown as { __llmWorker: Worker }).__llmWorker.postMessage({
          type: 'debug.close',
        }),
      );
      const closedAt = Date.now();
      await expect
        .poll(() => page.getByRole('alert').allTextContents(), { timeout: 15_000, interval: 250 })
        .toContainEqual(expect.stringContaining('The model stopped responding'));
      console.log(`Compare noticed the dead worker ${Date.now() - closedAt} ms after it closed`);
      expect(Date.now() - closedAt).toBeLessThan(15_000);
    });
  }, 240_000);
});
