/**
 * DOMPurify's public XSS vectors through the assistant renderer in real Chromium, rendered whole
 * and streamed in small chunks: no script may run, and the output holds no active content.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SCREENSHOT_DIR, type Browser } from './harness';
import { openRenderHarness } from '../render/server';

interface Vector {
  title: string;
  payload: string;
}
const corpus = JSON.parse(
  readFileSync(join(ROOT, 'tests', 'fixtures', 'corpora', 'dompurify-xss-vectors.json'), 'utf8'),
) as { vectors: Vector[] };

let browser: Browser;
let close: (() => Promise<void>) | undefined;
const dialogs: string[] = [];

beforeAll(async () => {
  ({ browser, close } = await openRenderHarness(async (page) => {
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Traps: any script that runs flips a flag.
    await page.addInitScript(() => {
      const w = window as unknown as { __xss: string[] };
      w.__xss = [];
      for (const name of ['alert', 'confirm', 'prompt', 'print'] as const) {
        (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
          void w.__xss.push(`${name}:${String(args[0])}`);
      }
    });
  }));
  await browser.page.evaluate(() => window.harness.loadKatex());
}, 120_000);

afterAll(async () => {
  await close?.();
});

describe('XSS corpus through the renderer', () => {
  it(`renders all ${corpus.vectors.length} vectors inert, whole and streamed`, async () => {
    expect(corpus.vectors.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const vector of corpus.vectors) {
      for (const text of [vector.payload, `Answer:\n\n${vector.payload}\n\nand $x^2$ after`]) {
        const { whole, streamed } = await browser.page.evaluate(
          ([t]) => window.harness.renderBoth(t ?? '', 3),
          [text],
        );
        for (const html of [whole, streamed]) {
          const problems = await browser.page.evaluate((h) => {
            const doc = new DOMParser().parseFromString(`<div>${h}</div>`, 'text/html');
            const found: string[] = [];
            if (
              doc.querySelector(
                'script, iframe, object, embed, form, base, meta, link, style, frame, frameset, applet',
              )
            )
              found.push('active element');
            for (const el of doc.querySelectorAll('*')) {
              for (const attr of el.attributes) {
                if (/^on/i.test(attr.name)) found.push(`handler ${attr.name}`);
                if (
                  /^(href|src|action|formaction|xlink:href|data)$/i.test(attr.name) &&
                  /^\s*(javascript|vbscript|data):/i.test(
                    // eslint-disable-next-line no-control-regex -- browsers strip these from URLs
                    attr.value.replace(/[\u0000-\u0020\u2028\u2029]/g, ''),
                  )
                )
                  found.push(`url ${attr.name}=${attr.value}`);
                // KaTeX's own output uses inline styles for layout; anything else must not.
                if (attr.name === 'style' && !el.closest('.katex')) found.push('style attribute');
              }
            }
            return found;
          }, html);
          if (problems.length) failures.push(`${vector.title}: ${problems.join(', ')}`);
        }
      }
    }
    // Give any deferred payload (onload, timers, lazy images) a moment to fire.
    await browser.page.waitForTimeout(500);
    const trapped = await browser.page.evaluate(
      () => (window as unknown as { __xss: string[] }).__xss,
    );
    expect(failures).toEqual([]);
    expect(trapped).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(browser.foreignRequests).toEqual([]);
  });
});

const SAMPLE = `## Pythagoras in code

The theorem $a^2 + b^2 = c^2$ costs $5 and $10 to explain, and in display form:

$$
c = \\sqrt{a^2 + b^2}, \\qquad \\int_0^1 x^2\\,dx = \\frac{1}{3}
$$

| a | b | c = \\(\\sqrt{a^2+b^2}\\) |
|---|---|:---:|
| 3 | 4 | 5 |
| 5 | 12 | 13 |

\`\`\`ts
export function hypotenuse(a: number, b: number): number { return Math.sqrt(a * a + b * b); } // a long line that scrolls horizontally
\`\`\`

> A quote with a [link](https://example.com) and \`inline code\`.

- first point
- second point with **bold** text
`;

describe('rendered sample', () => {
  it('typesets math, lays out a table and a scrolling code block (screenshot)', async () => {
    await browser.page.evaluate((t) => window.harness.show(t), SAMPLE);
    const out = browser.page.locator('#out');
    expect(await out.locator('.katex').count()).toBe(3);
    expect(await out.locator('.katex-error').count()).toBe(0);
    expect(await out.locator('table tr').count()).toBe(3);
    expect(await out.textContent()).toContain('costs $5 and $10');
    const scrolls = await out
      .locator('pre')
      .evaluate((pre) => pre.scrollWidth > pre.clientWidth && getComputedStyle(pre).overflowX);
    expect(scrolls).toBe('auto');
    expect(await out.locator('a').getAttribute('rel')).toContain('noopener');
    await out.screenshot({ path: join(SCREENSHOT_DIR, 'markdown-sample.png') });
  });
});
