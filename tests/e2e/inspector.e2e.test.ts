/**
 * The state-machine inspector in Chromium: the built app opened with `?inspect`, the tiny
 * random-weight model loaded through the real worker on SwiftShader WebGPU, a message sent; the
 * panel shows the chat actor's statechart moving to `generating` and back to `idle`, and the
 * event log collapses the token stream into one counted row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  inBrowser,
  loadModel,
  screenshot,
  serveDist,
  serveModels,
  type RunningServer,
} from './harness';

let app: RunningServer;
let models: RunningServer;

beforeAll(async () => {
  app = await serveDist();
  models = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
});

afterAll(async () => {
  await app?.close();
  await models?.close();
});

describe('inspector in Chromium', () => {
  it('shows the chat actor move to generating and back to idle during a chat', async () => {
    const url = `${app.url}?inspect&modelHost=${encodeURIComponent(models.url)}&extraModel=${TINY_MODEL_ID}&maxTokens=32`;
    const viewport = { width: 1600, height: 1000 };
    await inBrowser(url, { webgpu: true, viewport }, async (browser) => {
      const { page } = browser;
      const panel = page.getByRole('complementary', { name: 'State machine inspector' });
      await expect.poll(() => panel.isVisible(), { timeout: 30_000 }).toBe(true);

      // The actor tree: the app root with its spawned worker, model and chat actors.
      const tree = panel.getByRole('tree', { name: 'Actors' });
      for (const name of [/^app/, /^llmWorker/, /^model/, /^chat/])
        await expect
          .poll(() => tree.getByRole('treeitem', { name }).count(), { timeout: 30_000 })
          .toBeGreaterThan(0);

      await loadModel(page, /tiny-random-llama/);

      await tree.getByRole('treeitem', { name: /^chat/ }).click();
      const state = (id: string) => panel.locator(`g[data-state="${id}"]`);
      await expect
        .poll(() => state('chat.idle').getAttribute('data-active'), { timeout: 30_000 })
        .toBe('true');

      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Hello there');
      await box.press('Enter');
      await expect
        .poll(() => state('chat.replying.generating').getAttribute('data-active'), {
          timeout: 60_000,
        })
        .toBe('true');
      expect(await state('chat.idle').getAttribute('data-active')).toBe('false');
      await screenshot(page, 'inspector-generating');

      await expect
        .poll(() => state('chat.idle').getAttribute('data-active'), { timeout: 120_000 })
        .toBe('true');
      expect(await state('chat.replying.generating').getAttribute('data-active')).toBe('false');

      // The log: chat.send → generating, worker.complete → idle, tokens as one counted row.
      const log = panel.getByRole('region', { name: 'Event log' });
      await expect
        .poll(() => log.locator('tr[data-event="chat.send"]').last().textContent())
        .toMatch(/generating/);
      await expect
        .poll(() => log.locator('tr[data-event="worker.complete"]').last().textContent())
        .toMatch(/idle/);
      const updates = log.locator('tr[data-event="worker.update"]');
      expect(await updates.count()).toBeGreaterThan(0);
      expect(await updates.count()).toBeLessThanOrEqual(2);
      const total = Number(/(\d+) events/.exec((await log.textContent()) ?? '')?.[1]);
      expect(total).toBeGreaterThan(await log.locator('tbody tr').count());
      await screenshot(page, 'inspector-idle');
      expect(browser.consoleErrors.filter((e) => /inspector|elk/i.test(e))).toEqual([]);
    });
  });
});
