/**
 * The model hub in Chromium: the built app at `#/hub`, a model record pasted (no network), a
 * snippet copied with the copy button, the clipboard read back. Also checks that the hub arrives
 * as a lazy chunk: none of its code is fetched by the main screen, and it is fetched at `#/hub`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, inBrowser, serveDist, type Browser, type RunningServer } from './harness';

/** A text only the hub's code holds. */
const HUB_MARKER = 'Use pasted record';

const RECORD = {
  id: 'acme/tiny-chat',
  pipeline_tag: 'text-generation',
  library_name: 'transformers',
  tags: ['transformers', 'conversational'],
  transformersInfo: { auto_model: 'AutoModelForCausalLM', processor: 'AutoTokenizer' },
};

let app: RunningServer;
beforeAll(async () => {
  app = await serveDist();
});
afterAll(async () => {
  await app?.close();
});

describe('model hub in Chromium', () => {
  it('#/hub: paste a record, copy a snippet, the clipboard holds it', async () => {
    const scripts: string[] = [];
    const hubScripts = () =>
      scripts.filter((p) => readFileSync(join(DIST, p.slice(1)), 'utf8').includes(HUB_MARKER));
    const prepare = async ({ page, context }: Browser) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: new URL(app.url).origin,
      });
      page.on('response', (r) => {
        const url = new URL(r.url());
        if (r.request().resourceType() === 'script') scripts.push(url.pathname);
      });
    };
    await inBrowser(app.url, { webgpu: true, prepare }, async ({ page }) => {
      await page
        .getByRole('heading', { name: 'Load local LLM models within the browser!' })
        .waitFor();
      await page.waitForLoadState('networkidle');
      expect(hubScripts(), 'the main screen fetched hub code').toEqual([]);

      await page.goto(`${app.url}#/hub`);
      await page.getByRole('heading', { name: 'Model hub', level: 1 }).waitFor();
      expect(hubScripts().length, 'the hub chunk was not fetched').toBeGreaterThan(0);

      await page.getByRole('tab', { name: 'Model snippets' }).click();
      await page.getByLabel(/Or paste a model record/).fill(JSON.stringify(RECORD));
      await page.getByRole('button', { name: 'Use pasted record' }).click();
      await page.getByRole('heading', { name: RECORD.id, level: 2 }).waitFor();

      await page.getByRole('tab', { name: 'Shell' }).click();
      const shell = page.getByRole('tabpanel', { name: 'Shell' });
      const code = await shell.locator('pre code').first().innerText();
      expect(code).toContain('https://router.huggingface.co/v1/chat/completions');
      await shell.getByRole('button', { name: 'Copy Shell (curl)' }).click();
      await shell.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);

      await page.getByRole('button', { name: 'Copy Transformers snippet 2' }).click();
      const library = await page.evaluate(() => navigator.clipboard.readText());
      expect(library).toContain('AutoModelForCausalLM.from_pretrained("acme/tiny-chat"');
    });
  });
});
