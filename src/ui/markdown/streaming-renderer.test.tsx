import { describe, expect, it } from 'vitest';
import { createStreamingRenderer } from './streaming-renderer';
import { renderMarkdown } from './markdown';

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

/** Normalises the DOM into comparable HTML (block wrappers removed). */
function html(el: HTMLElement): string {
  return [...el.querySelectorAll(':scope > .md-block')]
    .map((b) => b.innerHTML.trim())
    .filter(Boolean)
    .join('\n')
    .replace(/\n+/g, '\n');
}

function full(text: string): string {
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(text);
  return el.innerHTML.trim().replace(/\n+/g, '\n');
}

describe('createStreamingRenderer', () => {
  it('streamed token by token, the final DOM equals a full render', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    for (let i = 1; i <= SAMPLE.length; i += 3) r.update(SAMPLE.slice(0, i));
    r.finish(SAMPLE);
    expect(html(el)).toBe(full(SAMPLE));
  }, 30_000);

  it('matches a full render at many random cut points (after finish)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 12; n++) {
      const cut = Math.floor(rand() * SAMPLE.length);
      const text = SAMPLE.slice(0, cut);
      const el = document.createElement('div');
      const r = createStreamingRenderer(el);
      for (let i = 1; i <= text.length; i += 1 + Math.floor(rand() * 15))
        r.update(text.slice(0, i));
      r.finish(text);
      expect(html(el), `cut at ${cut}`).toBe(full(text));
    }
  }, 30_000);

  it('keeps finished blocks as the same DOM nodes (only the open block is re-rendered)', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('First paragraph.\n\nSecond');
    const first = el.querySelector('.md-block');
    expect(first?.textContent?.trim()).toBe('First paragraph.');
    r.update('First paragraph.\n\nSecond paragraph grows');
    expect(el.querySelector('.md-block')).toBe(first);
    expect(el.querySelector('.md-open')?.textContent?.trim()).toBe('Second paragraph grows');
  });

  it('an open code fence stays open until it is closed', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Text\n\n```py\nprint(1)\n\nprint(2)');
    expect(el.querySelectorAll('pre')).toHaveLength(1);
    expect(el.querySelector('pre')?.textContent).toContain('print(2)');
  });

  it('protects math from Markdown and leaves prices alone', () => {
    const el = document.createElement('div');
    el.innerHTML = renderMarkdown('a $x_1 * y_2 * z$ b, costs $5 and $10, \\(a_b\\)\n\n$$a*b*c$$');
    const tex = [...el.querySelectorAll<HTMLElement>('[data-tex]')].map((e) => e.dataset.tex);
    expect(tex).toEqual(['x_1 * y_2 * z', 'a_b', 'a*b*c']);
    expect(el.textContent).toContain('costs $5 and $10');
    expect(el.querySelector('em')).toBeNull();
  });

  it('a changed prefix (new message in the same element) re-renders from scratch', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Alpha\n\nBeta');
    r.update('Gamma');
    expect(el.textContent?.trim()).toBe('Gamma');
  });

  it('reference-style links resolve after finish', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text = 'See [docs][d].\n\n[d]: https://example.com/docs\n';
    for (let i = 1; i <= text.length; i++) r.update(text.slice(0, i));
    r.finish(text);
    expect(el.querySelector('a')?.getAttribute('href')).toBe('https://example.com/docs');
  });
});

describe('sanitization', () => {
  it.each([
    [
      '<img src=x onerror=alert(1)>',
      (el: HTMLElement) => expect(el.querySelector('img')?.getAttribute('onerror')).toBeNull(),
    ],
    [
      '<script>alert(1)</script>',
      (el: HTMLElement) => expect(el.querySelector('script')).toBeNull(),
    ],
    [
      '[x](javascript:alert(1))',
      (el: HTMLElement) => expect(el.querySelector('a')?.getAttribute('href') ?? null).toBeNull(),
    ],
    [
      '<iframe src="https://evil.example"></iframe>',
      (el: HTMLElement) => expect(el.querySelector('iframe')).toBeNull(),
    ],
    [
      '<form action="https://evil.example"><input></form>',
      (el: HTMLElement) => expect(el.querySelector('form, input')).toBeNull(),
    ],
    [
      '<p style="position:fixed">x</p>',
      (el: HTMLElement) => expect(el.querySelector('[style]')).toBeNull(),
    ],
  ])('%s', (input, check) => {
    const el = document.createElement('div');
    el.innerHTML = renderMarkdown(input);
    check(el);
  });

  it('links open in a new tab without an opener', () => {
    const el = document.createElement('div');
    el.innerHTML = renderMarkdown('[a](https://example.com)');
    expect(el.querySelector('a')?.getAttribute('target')).toBe('_blank');
    expect(el.querySelector('a')?.getAttribute('rel')).toContain('noopener');
  });
});
