/**
 * KaTeX typesetting of the `data-tex` placeholders, loaded lazily so KaTeX (and its CSS and fonts)
 * never weighs on the first page load. Options keep it inert: no \href/\url trust, bounded macro
 * expansion and sizes, errors rendered as text.
 */
import type KatexModule from 'katex';
import { errorMessage } from '../../shared/errors';

type Katex = typeof KatexModule;

export const KATEX_OPTIONS = {
  trust: false,
  maxExpand: 1000,
  maxSize: 20,
  throwOnError: false,
  strict: 'ignore' as const,
  output: 'htmlAndMathml' as const,
};

const WARM_UP = String.raw`\sum_{i=1}^{n} \frac{a_i^2}{\sqrt{b}} + \int_0^1 x\,dx = c^2`;

let katex: Katex | null = null;
let loading: Promise<Katex> | null = null;

export function loadKatex(): Promise<Katex> {
  loading ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(
    ([m]) => {
      // Warm KaTeX up once on load (its first render compiles much of it, its first layout
      // resolves its styles and starts its font loads), so the first formula of a stream does
      // not cost a long frame.
      const probe = document.createElement('div');
      probe.style.cssText = 'position:absolute;visibility:hidden;pointer-events:none';
      for (const displayMode of [false, true])
        probe.insertAdjacentHTML(
          'beforeend',
          m.default.renderToString(WARM_UP, { ...KATEX_OPTIONS, displayMode }),
        );
      document.body.append(probe);
      void probe.offsetHeight; // style and font lookup for KaTeX's classes, once
      probe.remove();
      katex = m.default;
      return katex;
    },
    (error: unknown) => {
      loading = null; // allow a retry; until then the formulas stay as text
      throw error;
    },
  );
  return loading;
}

/**
 * The open block is re-rendered on every update, so the same formulas are typeset again and again:
 * keep KaTeX's output per (formula, mode) as parsed nodes in a small LRU cache, cloned on use.
 */
const cache = new Map<string, DocumentFragment>();
const CACHE_SIZE = 500;

function renderCached(k: Katex, tex: string, display: boolean): DocumentFragment {
  const key = `${display ? 'D' : 'I'}${tex}`;
  let nodes = cache.get(key);
  if (nodes) {
    cache.delete(key);
  } else {
    const template = document.createElement('template');
    try {
      template.innerHTML = k.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display });
    } catch (error) {
      // With throwOnError false KaTeX reports parse errors inline; anything else shows as text.
      const span = document.createElement('span');
      span.className = 'math-error';
      span.textContent = `${tex} (${errorMessage(error)})`;
      template.content.append(span);
    }
    nodes = template.content;
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
  }
  cache.set(key, nodes);
  const copy = nodes.cloneNode(true);
  if (copy instanceof DocumentFragment) return copy;
  const fragment = document.createDocumentFragment(); // (a clone of a fragment is one)
  fragment.append(copy);
  return fragment;
}

/** Typesets every untypeset math placeholder under `root`; returns false if KaTeX is not loaded yet. */
export function typeset(root: ParentNode): boolean {
  const elements = root.querySelectorAll<HTMLElement>('[data-tex]:not([data-typeset])');
  if (elements.length === 0) return true;
  if (!katex) {
    loadKatex().then(
      () => typeset(root),
      () => undefined, // offline or chunk missing: the source stays readable as text
    );
    return false;
  }
  for (const el of elements) {
    const tex = el.dataset.tex ?? '';
    const display = el.classList.contains('math-display');
    el.replaceChildren(renderCached(katex, tex, display));
    el.dataset.typeset = '';
  }
  return true;
}
