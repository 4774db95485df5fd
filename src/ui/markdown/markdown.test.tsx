import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';
import { loadKatex, typeset } from './math';

function render(markdown: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(markdown);
  return el;
}

const texOf = (el: HTMLElement) =>
  [...el.querySelectorAll<HTMLElement>('[data-tex]')].map((e) => [e.className, e.dataset.tex]);

describe('math protection', () => {
  it('keeps Markdown out of math and leaves prices alone', () => {
    const el = render('a $x_1 * y_2 * z$ b, costs $5 and $10, \\(a_b\\)\n\n$$a*b*c$$');
    expect(texOf(el)).toEqual([
      ['math-inline', 'x_1 * y_2 * z'],
      ['math-inline', 'a_b'],
      ['math-display', 'a*b*c'],
    ]);
    expect(el.textContent).toContain('costs $5 and $10');
    expect(el.querySelector('em')).toBeNull();
  });

  it('supports \\[…\\] blocks and inline display math', () => {
    const el = render('\\[\n\\sum_i i\n\\]\n\ntext $$e^{i\\pi}$$ and \\[x\\] end');
    expect(texOf(el)).toEqual([
      ['math-display', '\\sum_i i'],
      ['math-display', 'e^{i\\pi}'],
      ['math-display', 'x'],
    ]);
    expect(el.querySelector('p div')).toBeNull(); // inline display math is a span
  });

  it('leaves math inside code alone and honours escaped dollars', () => {
    const el = render('`$x$` and \\$y\\$\n\n```\n$$z$$\n```');
    expect(el.querySelector('[data-tex]')).toBeNull();
    expect(el.textContent).toContain('$y$');
  });

  it('an unclosed $$ block stays text (until it closes)', () => {
    expect(render('$$\n\\frac12').querySelector('[data-tex]')).toBeNull();
    expect(texOf(render('$$\n\\frac12\n$$'))).toEqual([['math-display', '\\frac12']]);
  });
});

describe('sanitization', () => {
  it.each([
    ['<img src=x onerror=alert(1)>', 'img, [onerror]'],
    ['<script>alert(1)</script>', 'script'],
    ['<iframe src="https://evil.example"></iframe>', 'iframe'],
    ['<form action="https://evil.example"><input><button>x</button></form>', 'form, input, button'],
    ['<p style="position:fixed">x</p>', '[style]'],
    ['<style>body{display:none}</style>', 'style'],
    ['<div id="root" class="overlay">x</div>', '#root, .overlay'],
    ['<svg><script>alert(1)</script></svg>', 'svg, script'],
    ['<a href="javascript:alert(1)">x</a>', '[href]'],
    ['[x](javascript:alert(1))', '[href]'],
    ['[x](data:text/html;base64,PHNjcmlwdD4=)', '[href]'],
    ['<video src="https://e.example/v.mp4"></video>', 'video'],
  ])('%s', (input, forbidden) => {
    expect(render(input).querySelector(forbidden)).toBeNull();
  });

  it('links open in a new tab without an opener; only http(s) and mailto', () => {
    const el = render('[a](https://example.com) [m](mailto:a@b.c) [f](ftp://x.y/z)');
    const links = [...el.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([
      'https://example.com',
      'mailto:a@b.c',
      null,
    ]);
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')).toContain('noopener noreferrer');
    }
  });

  it('images are never loaded: they become links', () => {
    const el = render('![a cat](https://example.com/cat.png)');
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('a')?.getAttribute('href')).toBe('https://example.com/cat.png');
    expect(el.textContent?.trim()).toBe('a cat');
  });

  it('keeps what Markdown needs: code language, table alignment, list start', () => {
    const el = render('```ts\nlet a = 1;\n```\n\n| a |\n|:-:|\n| 1 |\n\n3. three\n4. four');
    expect(el.querySelector('code.language-ts')).not.toBeNull();
    expect(el.querySelector('th')?.getAttribute('align')).toBe('center');
    // Every table in its scrolling wrapper (a streamed table's too: open-table.ts).
    expect(el.querySelector('div.md-table > table')).not.toBeNull();
    expect(el.querySelector('ol')?.getAttribute('start')).toBe('3');
  });
});

describe('KaTeX typesetting', () => {
  it('typesets placeholders inertly; errors and untrusted commands render as text', async () => {
    await loadKatex();
    const el = render(
      '$a^2$ and $\\href{javascript:alert(1)}{click}$ and $\\frac{$ and ' +
        '$\\def\\x{\\x\\x}\\x$ and $\\rule{1000em}{1000em}$',
    );
    expect(typeset(el)).toBe(true);
    const [ok, href, broken, bomb, huge] = [...el.querySelectorAll<HTMLElement>('[data-tex]')];
    expect(ok?.querySelector('.katex')).not.toBeNull();
    expect(el.querySelector('a')).toBeNull();
    expect(href?.textContent).toContain('click');
    expect(broken?.querySelector('.katex-error')?.textContent).toBe('\\frac{');
    expect(bomb?.querySelector('.katex-error')).not.toBeNull(); // maxExpand
    expect(huge?.querySelector('.katex-html')?.innerHTML).not.toContain('1000em'); // maxSize
    expect(el.querySelectorAll('[data-tex]:not([data-typeset])')).toHaveLength(0);
  });
});
