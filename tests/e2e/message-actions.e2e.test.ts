/**
 * Message actions in Chromium with the built app, the real worker and the tiny model (greedy):
 * Continue a reply cut at 4 tokens, Regenerate (the pager says "2 / 2"), Edit and resend as a
 * branch (the pager on the user message brings the old branch back), Copy with the clipboard,
 * the versions kept after a reload, and the keyboard order of the buttons.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import {
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  ask,
  inBrowser,
  loadModel,
  screenshot,
  serveAppAndModels,
  setSetting,
} from './harness';

const servers = serveAppAndModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });

const LIMIT_MARK = /Reached the \d+-token limit$/;
/** For what the page shows after a click (no reply written): generous, CI's 2 cores are loaded. */
const UI = { timeout: 30_000 };
const shot = (page: Page, step: string) =>
  screenshot(page, `message-actions/${step}`, { fullPage: true });
const bubbles = (page: Page, who: 'user' | 'assistant') => page.locator(`.bubble-${who}`);
/**
 * A reply's text without its limit mark. Trimmed: a streamed reply's DOM and the same text rendered
 * afresh (paging back to it) differ only in the whitespace between blocks, which no one sees.
 */
const textOf = async (bubble: Locator) =>
  ((await bubble.textContent()) ?? '').replace(LIMIT_MARK, '').trim();

/**
 * Waits until the last reply is finished: its buttons are back (a reply being written has none)
 * and `check` holds (what tells this reply from the one before the click).
 */
async function settled(page: Page, check: () => Promise<boolean>) {
  const regenerate = page
    .locator('.message-assistant')
    .last()
    .getByRole('button', { name: 'Regenerate' });
  await expect
    .poll(async () => (await check()) && (await regenerate.isEnabled().catch(() => false)), {
      timeout: 120_000,
    })
    .toBe(true);
}

describe('message actions', () => {
  it('continue, regenerate, edit as a branch, copy; saved across a reload', async () => {
    const url = servers.url(`&extraModel=${TINY_MODEL_ID}&maxTokens=12`);
    await inBrowser(
      url,
      {
        webgpu: true,
        noPageErrors: true,
        prepare: ({ context }) =>
          context.grantPermissions(['clipboard-read', 'clipboard-write'], {
            origin: servers.app.url,
          }),
      },
      async ({ page }) => {
        await loadModel(page, /tiny-random-llama/);
        await setSetting(page, 'Max new tokens', '4');
        await ask(page, 'Hello actions');
        const reply = page.locator('.message-assistant').last();
        await expect
          .poll(() => reply.locator('.reply-ended').textContent(), UI)
          .toMatch(LIMIT_MARK);
        await shot(page, '1-cut');
        const cut = await textOf(bubbles(page, 'assistant').last());

        // Continue: the model writes on into the same message.
        await reply.getByRole('button', { name: 'Continue' }).click();
        await settled(
          page,
          async () => (await textOf(bubbles(page, 'assistant').last())).length > cut.length,
        );
        expect(await bubbles(page, 'assistant').count()).toBe(1);
        const continued = await textOf(bubbles(page, 'assistant').last());
        expect(continued.startsWith(cut)).toBe(true);
        expect(continued.length).toBeGreaterThan(cut.length);
        await shot(page, '2-continued');

        // Regenerate: a new answer; the continued one is version 1 of 2.
        await reply.getByRole('button', { name: 'Regenerate' }).click();
        await settled(page, async () => (await reply.locator('.pager-count').count()) === 1);
        expect(await reply.locator('.pager-count').textContent()).toBe('2 / 2');
        await shot(page, '3-regenerated');
        await reply.getByRole('button', { name: 'Previous version' }).click();
        await expect.poll(() => reply.locator('.pager-count').textContent(), UI).toBe('1 / 2');
        expect(await textOf(bubbles(page, 'assistant').last())).toBe(continued);
        await shot(page, '4-previous-version');
        await reply.getByRole('button', { name: 'Next version' }).click();
        await expect.poll(() => reply.locator('.pager-count').textContent(), UI).toBe('2 / 2');

        // Copy: the message's text on the clipboard, and "Copied".
        await reply.getByRole('button', { name: 'Copy message' }).click();
        await expect.poll(() => reply.getByText('Copied', { exact: true }).count(), UI).toBe(1);
        await shot(page, '5-copied');
        const regenerated = await textOf(bubbles(page, 'assistant').last());
        // The clipboard gets the reply's Markdown as written, with the model's leading space.
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        expect(copied.trim()).toBe(regenerated);

        // Edit and resend: a new branch from the user message.
        const question = page.locator('.message-user').first();
        await question.getByRole('button', { name: 'Edit and resend' }).click();
        await page.getByRole('textbox', { name: 'Edit message' }).fill('Hello branch');
        await shot(page, '6-editing');
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await settled(
          page,
          async () => (await bubbles(page, 'user').textContent()) === 'Hello branch',
        );
        await expect.poll(() => question.locator('.pager-count').textContent(), UI).toBe('2 / 2');
        await shot(page, '7-branch');

        // Keyboard: from the question's Copy, Tab goes on through the buttons in reading order
        // (its pager comes before its Copy; the new reply has no other versions).
        await question.getByRole('button', { name: 'Copy message' }).focus();
        const order: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          await page.keyboard.press('Tab');
          order.push(
            await page.evaluate(() => {
              const el = document.activeElement;
              return el?.getAttribute('aria-label') ?? el?.textContent ?? '';
            }),
          );
        }
        expect(order).toEqual(['Edit and resend', 'Copy message', 'Regenerate']);

        // The old branch, with its own two versions of the reply.
        await question.getByRole('button', { name: 'Previous version' }).click();
        await expect.poll(() => bubbles(page, 'user').textContent(), UI).toBe('Hello actions');
        await expect.poll(() => reply.locator('.pager-count').textContent(), UI).toBe('2 / 2');
        await shot(page, '8-old-branch');

        // Saved with the conversation: after a reload the branches are all there.
        await page.reload();
        await page
          .getByRole('navigation', { name: 'Conversations' })
          .getByRole('button', { name: 'Hello actions', exact: true })
          .click();
        await expect
          .poll(() => page.locator('.pager-count').allTextContents(), UI)
          .toEqual(['1 / 2', '2 / 2']);
        await shot(page, '9-reloaded');
      },
    );
  }, 300_000);
});
