/**
 * Conversations, settings and stored models in Chromium, with the tiny model served under two
 * ids: chat, find the conversation after a reload (also offline), export then import (and bad
 * files), settings that change the output, switching models, and Stored models (sizes, delete,
 * the other model still loads offline).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import {
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  ask,
  inBrowser,
  loadModel,
  screenshot,
  serveAppAndModels,
  setSetting,
  type Browser,
} from './harness';

const COPY_ID = 'local/tiny-copy';
const servers = serveAppAndModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR, [COPY_ID]: TINY_MODEL_DIR });

const nav = (b: Browser) => b.page.getByRole('navigation', { name: 'Conversations' });

describe('conversations, settings and stored models', () => {
  it('chat, settings, reload (online and offline), export and import, switch models, stored models', async () => {
    const url = servers.url(`&extraModel=${TINY_MODEL_ID},${COPY_ID}&maxTokens=12`);
    await inBrowser(url, { webgpu: true, noPageErrors: true }, async (browser) => {
      const { page } = browser;
      await loadModel(browser.page, /tiny-random-llama/);

      // Greedy (temperature 0, the default) is repeatable.
      const first = await ask(browser.page, '  Hello persistence  ');
      await expect
        .poll(() =>
          nav(browser).getByRole('button', { name: 'Hello persistence', exact: true }).count(),
        )
        .toBe(1);
      expect(
        await nav(browser)
          .getByRole('button', { name: 'Hello persistence', exact: true })
          .getAttribute('aria-current'),
      ).toBe('page');
      await nav(browser).getByRole('button', { name: 'New chat', exact: true }).click();
      expect(await page.locator('.bubble-user').count()).toBe(0);
      expect(await ask(browser.page, 'Hello persistence')).toBe(first);

      // Out of range is refused with the range; Max new tokens caps the reply.
      await nav(browser).getByRole('button', { name: 'New chat', exact: true }).click();
      await setSetting(page, 'Temperature', '3');
      await expect
        .poll(() => page.getByRole('alert').first().textContent())
        .toBe('Temperature must be a number from 0 to 2.');
      await setSetting(page, 'Max new tokens', '13');
      await expect
        .poll(() => page.getByText('Max new tokens must be a whole number from 1 to 12.').count())
        .toBe(1);
      await setSetting(page, 'Temperature', '0');
      await setSetting(page, 'Max new tokens', '3');
      await ask(browser.page, 'Short please');
      expect(await page.locator('.speed').textContent()).toMatch(/Generated [1-3] tokens/);

      // Sampling on: two replies to the same prompt differ.
      await nav(browser).getByRole('button', { name: 'New chat', exact: true }).click();
      await setSetting(page, 'Max new tokens', '12');
      await setSetting(page, 'Temperature', '2');
      await setSetting(page, 'Top p', '1');
      const a = await ask(browser.page, 'Sample one');
      await nav(browser).getByRole('button', { name: 'New chat', exact: true }).click();
      await setSetting(page, 'Temperature', '2');
      const b = await ask(browser.page, 'Sample one');
      expect(a).not.toBe(b);

      // Reload: the conversation is there; selecting it shows its messages.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await page.reload();
      const entry = nav(browser).getByRole('button', { name: 'Hello persistence', exact: true });
      await expect.poll(() => entry.count(), { timeout: 30_000 }).toBe(2);
      await entry.first().click();
      await expect
        .poll(() => page.locator('.bubble-user').first().textContent())
        .toBe('Hello persistence');
      expect((await page.locator('.bubble-assistant').first().textContent())?.trim()).toBe(
        first.trim(),
      );

      // Offline reload: still there.
      await browser.context.setOffline(true);
      await page.reload();
      await expect
        .poll(
          () => nav(browser).getByRole('button', { name: 'Short please', exact: true }).count(),
          {
            timeout: 30_000,
          },
        )
        .toBe(1);
      await browser.context.setOffline(false);

      // Export JSON, then import it back as a new conversation.
      await nav(browser).getByRole('button', { name: 'Short please', exact: true }).click();
      await expect
        .poll(() => page.locator('.bubble-user').first().textContent())
        .toBe('Short please');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export JSON' }).click(),
      ]);
      const file = join(tmpdir(), `conv-${Date.now()}.json`);
      await download.saveAs(file);
      const exported = JSON.parse(readFileSync(file, 'utf8')) as {
        version: number;
        modelId: string;
        settings: { maxNewTokens: number };
        messages: Array<{ role: string; content: string }>;
      };
      expect(exported.version).toBe(2);
      expect(exported.modelId).toBe(TINY_MODEL_ID);
      expect(exported.settings.maxNewTokens).toBe(3);
      expect(exported.messages[0]).toEqual({ role: 'user', content: 'Short please' });
      const [md] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export Markdown' }).click(),
      ]);
      expect(md.suggestedFilename()).toBe('short-please.md');

      const input = page.getByLabel('Import conversation');
      await input.setInputFiles(file);
      await expect
        .poll(() => nav(browser).getByRole('button', { name: 'Short please', exact: true }).count())
        .toBe(2);

      // Bad files: a specific alert, nothing changes.
      const count = await nav(browser).getByRole('listitem').count();
      const bad = join(tmpdir(), `bad-${Date.now()}.json`);
      writeFileSync(bad, '{ not json');
      await input.setInputFiles(bad);
      await expect
        .poll(() => nav(browser).getByRole('alert').textContent())
        .toMatch(/not valid JSON/);
      writeFileSync(bad, JSON.stringify({ ...exported, version: 7 }));
      await input.setInputFiles(bad);
      await expect.poll(() => nav(browser).getByRole('alert').textContent()).toMatch(/version 7/);
      writeFileSync(bad, 'x'.repeat(5 * 1024 * 1024 + 10));
      await input.setInputFiles(bad);
      await expect.poll(() => nav(browser).getByRole('alert').textContent()).toMatch(/too large/);
      expect(await nav(browser).getByRole('listitem').count()).toBe(count);

      // Delete with a confirm step.
      await nav(browser)
        .getByRole('button', { name: 'Delete Sample one', exact: true })
        .first()
        .click();
      await nav(browser).getByRole('button', { name: 'Delete conversation', exact: true }).click();
      await expect
        .poll(() => nav(browser).getByRole('button', { name: 'Sample one', exact: true }).count())
        .toBe(1);

      // Switch models (the picker stays usable) and chat.
      await loadModel(browser.page, /tiny-random-llama/);
      await loadModel(browser.page, /tiny-copy/);
      await nav(browser).getByRole('button', { name: 'New chat', exact: true }).click();
      expect((await ask(browser.page, 'After the switch')).trim().length).toBeGreaterThan(0);

      // Stored models: both, with sizes matching the bytes served.
      await page.getByRole('button', { name: 'Stored models' }).click();
      const dialog = page.getByRole('dialog', { name: 'Stored models' });
      await expect
        .poll(() => dialog.getByRole('rowheader').allTextContents(), { timeout: 30_000 })
        .toEqual(
          expect.arrayContaining([
            expect.stringContaining(TINY_MODEL_ID),
            expect.stringContaining(COPY_ID),
          ]),
        );
      const served = servers.models.requests
        .filter((r) => r.startsWith(`/${TINY_MODEL_ID}/resolve/main/`))
        .map((r) => r.replace(`/${TINY_MODEL_ID}/resolve/main/`, ''));
      const expectedBytes = [...new Set(served)]
        .filter((f) => {
          try {
            return statSync(join(TINY_MODEL_DIR, f)).isFile();
          } catch {
            return false;
          }
        })
        .reduce((sum, f) => sum + statSync(join(TINY_MODEL_DIR, f)).size, 0);
      const row = dialog.getByRole('row', { name: new RegExp(TINY_MODEL_ID) });
      expect(Number(await row.locator('td[data-bytes]').getAttribute('data-bytes'))).toBe(
        expectedBytes,
      );
      expect(await row.locator('td[data-bytes]').textContent()).toMatch(/^\d+\.\d{2}(kB|MB)$/);
      await expect.poll(() => dialog.getByText(/Storage used: .* of .*/).count()).toBe(1);
      await screenshot(page, 'stored-models');

      // Every Cache Storage entry (all caches: the model files, the plans, the app shell) naming
      // the model, by its id or URL-encoded (as a plan's key holds it).
      const namingModel = (id: string) =>
        page.evaluate(async (modelId) => {
          const names = [modelId, encodeURIComponent(modelId)];
          const urls: string[] = [];
          for (const name of await caches.keys())
            for (const request of await (await caches.open(name)).keys())
              urls.push(`${name} ${request.url}`);
          return urls.filter((u) => names.some((n) => u.includes(n)));
        }, id);
      // Its download plan was kept (so the check below could fail: Delete once left it).
      await expect
        .poll(async () => (await namingModel(TINY_MODEL_ID)).join('\n'), { timeout: 30_000 })
        .toContain('llm-studio-plans ');

      // The loaded model is refused; the other is deleted and its cache entries are gone.
      await dialog.getByRole('button', { name: `Delete ${COPY_ID}` }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toMatch(/is the loaded model/);
      await dialog.getByRole('button', { name: `Delete ${TINY_MODEL_ID}` }).click();
      await expect
        .poll(() => dialog.getByRole('rowheader').allTextContents(), { timeout: 30_000 })
        .toEqual([expect.stringContaining(COPY_ID)]);
      expect(await namingModel(TINY_MODEL_ID)).toEqual([]);
      await dialog.getByRole('button', { name: 'Close' }).click();

      // The other still loads offline.
      await browser.context.setOffline(true);
      await page.reload();
      await page.getByRole('button', { name: /^Model:/ }).waitFor({ timeout: 30_000 });
      await loadModel(browser.page, /tiny-copy/);
      expect((await ask(browser.page, 'Offline?')).trim().length).toBeGreaterThan(0);
      await browser.context.setOffline(false);
    });
  });
});
