/**
 * The context window in Chromium with the built app, the real worker and the tiny model served
 * with a window of 128 tokens (its config.json's max_position_embeddings lowered for a second repo
 * id): the usage line under the input grows with the conversation; past the window the oldest turns
 * are left out, the marker shows where, and replies keep coming; the refusal setting refuses the
 * next turn with both figures and keeps the text in the box; a single message longer than the
 * window is refused before it is sent, with both figures, the text kept; the marker and the refusal
 * setting come back with the conversation after a reload.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  TINY_MODEL_DIR,
  ask,
  inBrowser,
  loadModel,
  screenshot,
  send,
  serveAppAndModels,
} from './harness';

/** The tiny model again, its config saying it holds 128 positions. */
const SMALL_WINDOW_ID = 'local/tiny-window-128';
const WINDOW = 128;
/** The `?maxTokens=` cap, and so each reply's Max new tokens: short replies, a quick test. */
const MAX_NEW = 8;

const smallConfig = JSON.stringify({
  ...(JSON.parse(readFileSync(join(TINY_MODEL_DIR, 'config.json'), 'utf8')) as object),
  max_position_embeddings: WINDOW,
});

const servers = serveAppAndModels(
  { [SMALL_WINDOW_ID]: TINY_MODEL_DIR },
  (repo: string, file: string, res: ServerResponse) => {
    if (repo !== SMALL_WINDOW_ID || file !== 'config.json') return false;
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(smallConfig);
    return true;
  },
);

const shot = (page: Page, step: string) =>
  screenshot(page, `context-window/${step}`, { fullPage: true });
const usageLine = (page: Page) => page.locator('.context-count');
/** The N of the usage line's "N of 128 tokens" (NaN while it shows none). */
async function usedTokens(page: Page): Promise<number> {
  const text = (await usageLine(page).textContent()) ?? '';
  return Number(new RegExp(`^([\\d,]+) of ${WINDOW} tokens`).exec(text)?.[1]?.replace(/,/g, ''));
}
const marker = (page: Page) =>
  page.getByRole('note').filter({ hasText: 'Earlier messages are no longer seen by the model' });
const REFUSE = 'Refuse instead of leaving out earlier messages';
const bubbles = (page: Page, who: 'user' | 'assistant') => page.locator(`.bubble-${who}`);
/** Turns sent before the window must have overflowed: each takes well over 128 ÷ 8 tokens. */
const MOST_TURNS = 8;

describe('context window', () => {
  it('grows past a 128-token window: usage, marker, refusal, oversize message', async () => {
    await inBrowser(
      servers.url(`&extraModel=${SMALL_WINDOW_ID}&maxTokens=${MAX_NEW}`),
      { webgpu: true, noPageErrors: true },
      async ({ page }) => {
        await loadModel(page, /tiny-window-128/);
        // The count of the empty conversation (the system prompt and the template) arrives.
        await expect.poll(() => usedTokens(page)).toBeGreaterThan(0);
        let used = await usedTokens(page);

        // Turn after turn the usage line grows, until the oldest turns are left out.
        let turns = 0;
        while ((await marker(page).count()) === 0) {
          expect(turns, `the marker within ${MOST_TURNS} turns`).toBeLessThan(MOST_TURNS);
          turns += 1;
          await ask(page, `Turn ${turns}: tell me more about the weather today.`);
          await expect.poll(() => usedTokens(page)).toBeGreaterThan(used);
          used = await usedTokens(page);
        }
        expect(turns).toBeGreaterThan(1);
        // The marker stands before the first message still seen: some turns are above it.
        const above = await marker(page).evaluate((note) => {
          let n = 0;
          for (let el = note.previousElementSibling; el; el = el.previousElementSibling) n += 1;
          return n;
        });
        expect(above).toBeGreaterThan(0);
        expect(used + MAX_NEW).toBeGreaterThan(WINDOW);
        await expect
          .poll(() => usageLine(page).textContent())
          .toContain('past the window: the oldest messages are left out');
        await shot(page, '1-marker');

        // Replies keep coming past the window.
        const reply = await ask(page, 'And one more turn past the window?');
        expect(reply.trim().length).toBeGreaterThan(0);
        expect(await bubbles(page, 'assistant').count()).toBe(turns + 1);
        expect(await marker(page).count()).toBe(1);

        // The refusal setting: the next turn is refused with both figures, its text kept.
        await page.getByLabel(REFUSE).check();
        await expect
          .poll(() => usageLine(page).textContent())
          .toContain('past the window: sending is refused');
        const refusedText = 'This turn does not fit any more.';
        const box = await send(page, refusedText);
        const alert = page.locator('.chat-error');
        await expect
          .poll(() => alert.textContent())
          .toMatch(
            new RegExp(
              `^The conversation is \\d+ tokens; with Max new tokens \\(${MAX_NEW}\\) that is more than the model's window of ${WINDOW} tokens\\.`,
            ),
          );
        await expect.poll(() => box.inputValue()).toBe(refusedText);
        // The usage line counts what the refusal counted: the conversation with the kept text.
        const conversation = Number(/is (\d+) tokens/.exec((await alert.textContent()) ?? '')?.[1]);
        expect(conversation + MAX_NEW).toBeGreaterThan(WINDOW);
        await expect.poll(() => usedTokens(page)).toBe(conversation);
        expect(await bubbles(page, 'user').count()).toBe(turns + 1);
        expect(await bubbles(page, 'assistant').count()).toBe(turns + 1);
        await shot(page, '2-refused');

        // A single message longer than the window: refused before it is sent, the text kept
        // (whichever the setting; here it leaves earlier messages out again).
        await page.getByLabel(REFUSE).uncheck();
        const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
        await send(page, long);
        await expect
          .poll(() => alert.textContent())
          .toMatch(
            new RegExp(
              `^This message is (\\d+) tokens as the model sees it; with Max new tokens \\(${MAX_NEW}\\) that is more than the model's window of ${WINDOW} tokens\\.`,
            ),
          );
        const figure = Number(
          /This message is (\d+) tokens/.exec((await alert.textContent()) ?? '')?.[1],
        );
        expect(figure + MAX_NEW).toBeGreaterThan(WINDOW);
        await expect.poll(() => box.inputValue()).toBe(long);
        expect(await bubbles(page, 'user').count()).toBe(turns + 1);
        expect(await bubbles(page, 'assistant').count()).toBe(turns + 1);
        // The draft in the box is counted too: the usage line is past the window.
        await expect.poll(() => usedTokens(page)).toBeGreaterThan(WINDOW - MAX_NEW);
        await shot(page, '3-oversize');

        // Saved with the conversation: after a reload the marker is back before a model is
        // loaded, and with the model so is the refusal setting.
        await page.getByLabel(REFUSE).check();
        await page.reload();
        await page
          .getByRole('navigation', { name: 'Conversations' })
          .getByRole('button', {
            name: 'Turn 1: tell me more about the weather today.',
            exact: true,
          })
          .click();
        await expect.poll(() => marker(page).count()).toBe(1);
        expect(await bubbles(page, 'assistant').count()).toBe(turns + 1);
        await loadModel(page, /tiny-window-128/);
        await expect.poll(() => page.getByLabel(REFUSE).isChecked()).toBe(true);
        await shot(page, '4-reloaded');
      },
    );
  }, 180_000);
});
