/**
 * The message list's bottom in Chromium with the built app and the tiny model: a conversation
 * taller than the list stays at its end while the user is there (the sent message and the streamed
 * reply followed, after the browser's own layout), and stays where the user scrolled up to read
 * when a new turn comes (src/ui/chat/MessageList.tsx).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  ask,
  inBrowser,
  loadModel,
  serveAppAndModels,
} from './harness';

const servers = serveAppAndModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });

/** A message of many short lines: one is taller than the list. */
const TALL = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long question.`).join('\n');

const list = (page: Page) => page.locator('.message-list');
/** Pixels between the list's visible bottom and its content's end. */
const gap = (page: Page) =>
  list(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

describe('chat list scrolling in Chromium', () => {
  it('follows the end while the user is there, and leaves a user who scrolled up in place', async () => {
    await inBrowser(
      servers.url(`&extraModel=${TINY_MODEL_ID}&maxTokens=24`),
      { webgpu: true, noPageErrors: true, viewport: { width: 1000, height: 700 } },
      async ({ page }) => {
        await loadModel(page, /tiny-random-llama/);
        await ask(page, TALL);
        expect(await list(page).evaluate((el) => el.scrollHeight > el.clientHeight * 1.5)).toBe(
          true,
        );
        // At the end after the tall message and the streamed reply.
        await expect.poll(() => gap(page)).toBeLessThan(2);
        await ask(page, TALL);
        await expect.poll(() => gap(page)).toBeLessThan(2);

        // Scrolled up to read: a new turn does not move the view.
        await list(page).evaluate((el) => {
          el.scrollTop = 100;
        });
        await page.waitForTimeout(200);
        await ask(page, TALL);
        expect(await list(page).evaluate((el) => el.scrollTop)).toBe(100);
        expect(await gap(page)).toBeGreaterThan(500);

        // Back at the end: followed again.
        await list(page).evaluate((el) => {
          el.scrollTop = el.scrollHeight;
        });
        await page.waitForTimeout(200);
        await ask(page, 'And a short one.');
        await expect.poll(() => gap(page)).toBeLessThan(2);
      },
    );
  });
});
