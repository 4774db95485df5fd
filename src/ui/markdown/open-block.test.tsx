/**
 * The open block kept as DOM (open-block.ts): streamed token by token, heavy blocks (a long table,
 * a paragraph of inline formulas, a nested list, a long code fence) and random chunkings of the
 * 4,000-token answer (and of two shorter ones) end as the same DOM as a one-shot render, and stay
 * equal to a full render of the text so far while streaming. KaTeX is loaded before the tests, so typesetting is synchronous
 * and every comparison is deterministic (no timers, no frames).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Tokens } from 'marked';
import { createStreamingRenderer } from './streaming-renderer';
import { splitPoint } from './open-paragraph';
import { lex } from './markdown';
import { loadKatex } from './math';
import {
  answer,
  codeFenceText,
  formulasText,
  nestedListText,
  tableText,
  tokenize,
} from '../../../tests/bench/render-cases';
import { shownHtml } from '../../../tests/render/shown-html';
import { fullRender as full } from '../../../tests/render/full-render';

beforeAll(async () => {
  await loadKatex();
}, 30_000);

const html = shownHtml;

/** Streams `parts` (one update each), checking every `every`-th update against a full render. */
function stream(parts: string[], every: number): HTMLElement {
  const el = document.createElement('div');
  const r = createStreamingRenderer(el);
  let text = '';
  parts.forEach((part, i) => {
    text += part;
    r.update(text);
    if (i % every === every - 1)
      expect(html(el), `after ${JSON.stringify(text.slice(-30))}`).toBe(full(text));
  });
  r.finish(text);
  expect(html(el)).toBe(full(text));
  expect(el.querySelector('.md-open, .md-live, li[style]')).toBeNull();
  return el;
}

describe('heavy open blocks: streamed DOM equals the whole render', () => {
  it.each([
    ['a 20 x 4 table', tableText(20, 4)],
    ['15 inline formulas in one line', formulasText(15)],
    ['a 15-deep nested list', nestedListText(15)],
    ['a 30-line code fence', codeFenceText(30)],
  ])(
    '%s, token by token',
    (_, text) => {
      stream(tokenize(text), 1);
    },
    120_000,
  );

  // One long answer, and two shorter ones with other chunkings: the chunk boundaries are what
  // varies, and every update re-renders the open block, so the cost grows with the length.
  it.each([
    [1, 4000],
    [2, 1000],
    [3, 1000],
  ])(
    'an answer in random chunks (seed %i, %i tokens)',
    (seed, tokens) => {
      let s = seed;
      const rand = () => (s = (s * 16807) % 2147483647) / 2147483647;
      const text = answer(tokens).join('');
      const parts: string[] = [];
      for (let i = 0; i < text.length;) {
        const n = 1 + Math.floor(rand() * 60);
        parts.push(text.slice(i, i + n));
        i += n;
      }
      stream(parts, 25);
    },
    120_000,
  );
});

describe('a whole render in slices (finish with a schedule) ends as the whole render', () => {
  // Each clock read advances 5 ms, so every unit fills its slice: slicing does not hang on speed.
  let clock = 0;
  beforeEach(() => {
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 5));
  });
  afterEach(() => vi.restoreAllMocks());

  /** Slices run by hand, each under a budget far smaller than the work. */
  function sliced(text: string, before = ''): { el: HTMLElement; slices: number } {
    const queue: (() => void)[] = [];
    const el = document.createElement('div');
    const r = createStreamingRenderer(el, {
      schedule: (task) => {
        queue.push(task);
        return () => queue.splice(queue.indexOf(task), 1);
      },
    });
    if (before) r.update(before);
    r.finish(text);
    let slices = 1;
    for (let task = queue.shift(); task; task = queue.shift()) {
      expect(r.pending).toBe(true);
      task();
      slices++;
    }
    expect(r.pending).toBe(false);
    expect(html(el)).toBe(full(text));
    expect(el.querySelector('.md-open, .md-live, .md-seg, li[style]')).toBeNull();
    return { el, slices };
  }

  it.each([
    ['a 60 x 4 table', tableText(60, 4)],
    ['80 inline formulas in one line', formulasText(80)],
    ['a 30-deep nested list', nestedListText(30)],
    ['a 200-line code fence', codeFenceText(200)],
    ['the 1,000-token answer', answer(1000).join('')],
  ])(
    '%s',
    (_, text) => {
      expect(sliced(text).slices).toBeGreaterThan(1);
    },
    120_000,
  );

  it('goes on from the text streamed so far, and a new text cancels the slices left', () => {
    const text = formulasText(80);
    sliced(text, text.slice(0, 1000));
    const queue: (() => void)[] = [];
    const el = document.createElement('div');
    const r = createStreamingRenderer(el, {
      schedule: (task) => {
        queue.push(task);
        return () => queue.splice(queue.indexOf(task), 1);
      },
    });
    r.finish(text);
    expect(queue).toHaveLength(1);
    r.finish('Another *text*.');
    expect(queue).toHaveLength(0); // the slices of the first text were cancelled
    expect(html(el)).toBe(full('Another *text*.'));
    // Regression: a long text replacing another one stopped after its first step.
    const other = tableText(40, 3);
    r.finish(other);
    for (let task = queue.shift(); task; task = queue.shift()) task();
    expect(html(el)).toBe(full(other));
    r.finish(text);
    r.dispose();
    expect(queue).toHaveLength(0);
    expect(el.childNodes).toHaveLength(0);
  }, 120_000);
});

describe('finished parts of the open block are kept, not rendered again', () => {
  it('a table keeps its finished rows as the same nodes and appends new ones', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text = tableText(10, 3);
    const head = text.indexOf('| cell 3');
    r.update(text.slice(0, head));
    const rows = [...el.querySelectorAll('.md-open tbody tr')];
    expect(rows).toHaveLength(3);
    r.update(text.slice(0, head + 12)); // row 3 being written
    r.update(text.slice(0, text.indexOf('| cell 6')));
    const now = [...el.querySelectorAll('.md-open tbody tr')];
    expect(now).toHaveLength(6);
    expect(now.slice(0, 3)).toEqual(rows); // same elements
    expect(now.slice(0, 3).every((tr, i) => tr === rows[i])).toBe(true);
  });

  it('a paragraph keeps its typeset formulas and re-renders only after the last split', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text = formulasText(20);
    r.update(text.slice(0, text.indexOf('term $x_{5}')));
    const first = el.querySelector('.md-open p .math-inline');
    expect(first?.querySelector('.katex')).not.toBeNull();
    r.update(text.slice(0, text.indexOf('term $x_{12}')));
    expect(el.querySelector('.md-open p .math-inline')).toBe(first);
    expect(el.querySelectorAll('.md-open p')).toHaveLength(1);
  });

  it('a formula not yet finished for good stays the same node while words follow it', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Sum $x^2$');
    const math = el.querySelector('.md-open p .math-inline');
    expect(math?.querySelector('.katex')).not.toBeNull();
    r.update('Sum $x^2$ then');
    r.update('Sum $x^2$ then *more*');
    r.update('Sum $x^2$ then *more* `code`');
    expect(el.querySelector('.md-open p .math-inline')).toBe(math);
    expect(el.querySelector('.md-open p em')?.textContent).toBe('more');
  });

  it('a nested list keeps its items (the open path too) as the same nodes', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text = nestedListText(12);
    r.update(text.slice(0, text.indexOf('- level 4')));
    const items = [...el.querySelectorAll('.md-open li')];
    expect(items).toHaveLength(4);
    r.update(text.slice(0, text.indexOf('- level 9') + 9));
    const now = [...el.querySelectorAll('.md-open li')];
    expect(now).toHaveLength(10);
    expect(now.slice(0, 3).every((li, i) => li === items[i])).toBe(true);
  }, 30_000);

  it('lists that are not one item per line fall back and stay equal to a full render', () => {
    const lists = [
      '- a\n  - b\n    - c\n  - d\n- e\n\nafter\n', // siblings at each level
      '1. a\n   1. b\n   2. c\n2. d\n3) e\n', // ordered, a new delimiter starts a new list
      '- a\n  -\n- b\n continued\n  - c\n    lazy *em*\n', // setext, lazy lines
      '- a\n\n- b\n  - c\n', // loose
      '- [ ] task\n- [x] done\n  - ```\n    code\n    ```\n', // tasks and a fence
      '* a\n+ b\n- c\n  2. d\n  1. e\n', // mixed markers; an ordered list from 2 cannot interrupt
      '- a\n - b\n   - c\n      - d\n', // markers between levels
    ];
    for (const text of lists) stream(text.split(''), 1);
  }, 60_000);

  it('a list stays equal to a full render when the rest of it arrives at once after any prefix', () => {
    const lists = [
      '1. first\n2. second\n', // "2" is a lazy line of "first" until the rest makes it an item
      '- a\n  - b\n    c\n  - d\n- e\n\nAfter.\n',
      '- a\n  - b\n\n  - loose after all\n',
      '- a\n  - b\n\n# heading\n',
    ];
    for (const text of lists)
      for (let k = 1; k < text.length; k++) stream([text.slice(0, k), text.slice(k)], 1);
  }, 60_000);

  it('a code fence appends text: earlier text nodes are kept', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    const text = codeFenceText(10);
    r.update(text.slice(0, text.indexOf('const value3')));
    const firstNode = el.querySelector('.md-open code')?.firstChild;
    r.update(text.slice(0, text.indexOf('const value7') + 5));
    expect(el.querySelector('.md-open code')?.firstChild).toBe(firstNode);
    expect(el.querySelector('.md-open code')?.textContent).toContain('const value6');
  });

  it('a paragraph that turns into a setext heading or gains a table is rendered again', () => {
    const words = Array.from({ length: 8 }, (_, i) => `w${i} $x_${i}$`).join(' ');
    for (const ending of ['\n===\n\nnext\n', '\n| a | b |\n|---|---|\n| 1 | 2 |\n\nnext\n'])
      stream(tokenize(`${words}${ending}`), 3);
  }, 60_000);

  it('a code fence whose info string is still being typed, and a fence rewritten, stay equal', () => {
    stream(['``', '`t', 's\nconst a', ' = 1;\n', '```\n\nafter\n'], 1);
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('```\nabc\ndef');
    r.update('```\nabX'); // not an extension of the text: the open block starts over
    expect(el.querySelector('code')?.textContent).toBe('abX\n');
  });
});

describe('the plain-text fast path (plain-text.ts): words appended to the last text', () => {
  /** Texts where appending one more plain-looking word changes what a full render shows. */
  const TRICKY = [
    'Visit www.example.com or https://example.org/x today, then ftp://host.net.', // autolinks
    'mail me at name@example.com please', // an email autolink
    '2023. was a year\n\n1) starts a list\n\nplain words after', // a paragraph start that is a list
    'Title\n=====\n\nText\n---\n\nMore text', // setext headings under a growing line
    'AT&T and &amp; or &#x41; stay as written', // entities
    'a _b_c and _d_ e and snake_case_name', // intraword underscores
    'quotes "x" and \'y\' and café naïve — dashes – fine', // escaped and non-ASCII characters
    'line one  \nline two\twith a tab', // hard break, tab
    '| a | b |\n|---|---|\n| cell one  | cell two   \n| x | y \\| z |\n| `p|q` | r |\n\nafter', // table cells
    '- item one\n- 2023. nested list\n  - deep item http://x.y\n- last item words', // list items
    '- **Name**: words after www.x.y and *em* a_b_ more\n  - `code` then 1. words # not\n- [l](u) x ---', // list text after inline constructs
    'Paragraph words grow\nsecond line words\n# heading after', // a heading interrupting
    '| h1 | h2 | h3 |\n|:--|:-:|--:|\n| a b | | c d |\n|| x y | z |\n| one | two | three | four | five |\na | b\n|  lead  |  spaces here  |\n| `x` | words after code | `y|z` more |', // empty, extra and padded cells
  ];

  it.each(TRICKY.map((t, i) => [i, t]))(
    'tricky text %i: char by char and word by word, equal to a full render at every step',
    (_, text) => {
      stream(text.split(''), 1);
      stream(tokenize(text), 1);
    },
    60_000,
  );

  it('appends plain words to the same Text node (nothing rendered again)', () => {
    const el = document.createElement('div');
    const r = createStreamingRenderer(el);
    r.update('Hello there');
    const node = el.querySelector('.md-open p')?.firstChild;
    r.update('Hello there, general');
    r.update('Hello there, general Kenobi');
    expect(el.querySelector('.md-open p')?.firstChild).toBe(node);
    expect(node?.textContent).toBe('Hello there, general Kenobi');
    r.update('Hello there, general Kenobi *em*'); // not plain: rendered again
    expect(el.querySelector('.md-open em')?.textContent).toBe('em');
  });
});

describe('splitPoint (safe split of a paragraph)', () => {
  const split = (text: string) => {
    const p = lex(text)[0] as Tokens.Paragraph | undefined;
    return p?.type === 'paragraph' ? splitPoint(p.tokens, p.text) : -1;
  };

  it('splits after text ending in a space, before a closed construct', () => {
    expect(split('a $x$ b $y$ c')).toBe(3); // [a ][$x$][ b ] | [$y$][ c]
    expect(split('a **b** c `d` e')).toBe(3);
  });

  it('never splits after a possible opener or in a line holding a pipe', () => {
    expect(split('costs $5 and $x$ more $y$ z')).toBe(0); // a stray $ could still close
    expect(split('a *b c $x$ d $y$')).toBe(0); // an unclosed *
    expect(split('a | b $x$ c $y$ d')).toBe(0);
    expect(split('a \\(b $x$ c $y$')).toBe(1); // only before the \(, which may still close
  });
});
