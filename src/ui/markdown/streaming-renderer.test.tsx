import { beforeAll, describe, expect, it } from 'vitest';
import { createStreamingRenderer, finishedCount } from './streaming-renderer';
import { lex } from './markdown';
import { loadKatex } from './math';
import { shownHtml } from '../../../tests/render/shown-html';
import { fullRender as full } from '../../../tests/render/full-render';

// Regression (issue 12): KaTeX used to load lazily in the middle of these tests, so whether a
// test typeset its formulas (and how long it took) depended on timing; it loads first now, and
// both sides of every comparison are typeset synchronously.
beforeAll(async () => {
  await loadKatex();
}, 30_000);

const SAMPLE = `# Title

Some *emphasis* and \`code\`, costs $5 and $10, inline math $a^2 + b^2 = c^2$.

- one
- two
  continued

1. first
2. second

\`\`\`js
function area(w, h) {

  return w * h;
}
\`\`\`

| a | b |
|---|---|
| 1 | 2 |

> a quote

$$
\\int_0^1 x\\,dx = \\frac12
$$

Final paragraph with a [link](https://example.com).
`;

/** Blocks that look finished while streaming but are not. */
const TRICKY = `Intro line
===

1. a

2. b

    indented code

    more code

- loose

  continued item

Setext candidate
---

$$
x = 1
$$

<details>
<summary>s</summary>

inside
</details>

\`\`\`
fence

with blank lines
\`\`\`

Tail \\(a_1\\) and \\[b^2\\] end.
`;

const html = shownHtml;

describe('finishedCount (block splitting)', () => {
  const count = (tail: string) => finishedCount(lex(tail), tail);

  it('commits a block once a blank line and a complete next line follow it', () => {
    expect(count('para one')).toBe(0);
    expect(count('para one\n\npara')).toBe(0); // next line unfinished
    expect(count('para one\n\npara two\n')).toBe(2); // paragraph + space
    expect(count('# h\n## h2\n')).toBe(0); // no blank line in between
  });

  it('keeps a list open while its next item is still being typed', () => {
    expect(count('1. a\n\n2')).toBe(0);
    expect(count('1. a\n\n2. b\n\ntext\n')).toBe(2);
  });

  it('keeps an unclosed fence, $$ block and <pre> in the tail', () => {
    expect(count('```py\nx = 1\n\ny = 2\n')).toBe(0);
    expect(count('<pre>\na\n\nb\n')).toBe(0);
    expect(count('$$\nx\n$$\n\nnext\n')).toBe(1); // math raw holds the blank line
  });
});

describe('createStreamingRenderer', () => {
  it.each([
    ['SAMPLE', SAMPLE],
    ['TRICKY', TRICKY],
  ])(
    '%s: after every character the DOM equals a full render of the text so far',
    (_, doc) => {
      const el = document.createElement('div');
      const r = createStreamingRenderer(el);
      for (let i = 1; i <= doc.length; i++) {
        const text = doc.slice(0, i);
        r.update(text);
        expect(html(el), `after ${JSON.stringify(text.slice(-20))}`).toBe(full(text));
      }
      r.finish();
      expect(html(el)).toBe(full(doc));
      expect(el.querySelector('.md-open')).toBeNull();
    },
    60_000,
  );

  it('matches a full render at many random cut points, streamed in random chunks', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const doc = `${SAMPLE}\n${TRICKY}`;
    for (let n = 0; n < 12; n++) {
      const text = doc.slice(0, Math.floor(rand() * doc.length));
      const el = document.createElement('div');
      const r = createStreamingRenderer(el);
      for (let i = 1; i <= text.length; i += 1 + Math.floor(rand() * 15))
        r.update(text.slice(0, i));
      r.finish(text);
      expect(html(el), `cut at ${text.length}`).toBe(full(text));
    }
  }, 60_000);

  it('keeps finished blocks as the same DOM nodes (only the open block is re-rendered)', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('First paragraph.\n\nSecond\n');
    const first = el.querySelector('.md-block');
    expect(first?.textContent?.trim()).toBe('First paragraph.');
    expect(first?.classList.contains('md-open')).toBe(false);
    r.update('First paragraph.\n\nSecond\nparagraph grows');
    expect(el.querySelector('.md-block')).toBe(first);
    expect(el.querySelector('.md-open')?.textContent?.trim()).toBe('Second\nparagraph grows');
  });

  it('groups finished blocks into chunks (few siblings to lay out per update)', () => {
    const doc = Array.from({ length: 100 }, (_, i) => `Paragraph ${i} with $x_${i}$.\n\n`).join('');
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    for (let i = 1; i <= doc.length; i += 23) r.update(doc.slice(0, i));
    expect(el.children.length).toBeLessThanOrEqual(5); // 4 chunks + the open block
    expect(el.querySelectorAll('.md-chunk > .md-block').length).toBeGreaterThan(90);
    r.finish(doc);
    expect(html(el)).toBe(full(doc));
  }, 30_000);

  it('an open code fence stays one code block across blank lines', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Text\n\n```py\nprint(1)\n\nprint(2)\n\n');
    expect(el.querySelectorAll('pre')).toHaveLength(1);
    expect(el.querySelector('.md-open pre')?.textContent).toContain('print(2)');
    r.update('Text\n\n```py\nprint(1)\n\nprint(2)\n\n```\n\nafter\n');
    expect(el.querySelectorAll('pre')).toHaveLength(1);
    expect(el.querySelector('.md-open')?.textContent?.trim()).toBe('after');
  });

  it('a list item typed after a blank line joins the list', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    for (const t of ['1. a\n\n', '1. a\n\n2', '1. a\n\n2.', '1. a\n\n2. b']) r.update(t);
    r.finish();
    expect(el.querySelectorAll('ol')).toHaveLength(1);
    expect(el.querySelectorAll('li')).toHaveLength(2);
  });

  it('a changed prefix (new message in the same element) re-renders from scratch', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Alpha\n\nBeta\n');
    r.update('Gamma');
    expect(el.textContent?.trim()).toBe('Gamma');
    r.finish();
    r.update('Delta');
    expect(el.textContent?.trim()).toBe('Delta');
  });

  it('reference-style links resolve: defined before (while streaming) and after (on finish)', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text =
      '[a]: https://example.com/a\n\nSee [A][a] and [docs][d].\n\n[d]: https://example.com/d\n';
    for (let i = 1; i <= text.length; i++) r.update(text.slice(0, i));
    expect(el.querySelector('a')?.getAttribute('href')).toBe('https://example.com/a');
    r.finish(text);
    const hrefs = [...el.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['https://example.com/a', 'https://example.com/d']);
  }, 30_000);

  it('sanitizes the open block too', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('<img src=x onerror=alert(1)><script>alert(2)</script>');
    expect(el.querySelector('script, img, [onerror]')).toBeNull();
  });

  it('markup that leaves no body to sanitize (a frameset) renders as nothing', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('<frameset onload=alert(1)><frame src="javascript:alert(2)">');
    r.finish();
    expect(el.querySelector('frameset, frame, [onload]')).toBeNull();
  });

  it('dispose empties the container', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Hello\n\nworld');
    r.dispose();
    expect(el.childNodes).toHaveLength(0);
  });
});
