/**
 * KaTeX typesetting of the `data-tex` placeholders, loaded lazily so KaTeX (and its CSS and fonts)
 * never weighs on the first page load. Options keep it inert: no \href/\url trust, bounded macro
 * expansion and sizes, errors rendered as text.
 */
import type KatexModule from 'katex';

type Katex = typeof KatexModule;

export const KATEX_OPTIONS = {
  trust: false,
  maxExpand: 1000,
  maxSize: 20,
  throwOnError: false,
  strict: 'ignore' as const,
  output: 'htmlAndMathml' as const,
};

let katex: Katex | null = null;
let loading: Promise<Katex> | null = null;

export function loadKatex(): Promise<Katex> {
  loading ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(([m]) => {
    katex = m.default;
    return katex;
  });
  return loading;
}

/**
 * The open block is re-rendered on every update, so the same formulas are typeset again and again:
 * keep KaTeX's output per (formula, mode) in a small LRU cache.
 */
const cache = new Map<string, string>();
const CACHE_SIZE = 500;

function renderCached(k: Katex, tex: string, display: boolean): string {
  const key = `${display ? 'D' : 'I'}${tex}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let html: string;
  try {
    html = k.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display });
  } catch (error) {
    // With throwOnError false KaTeX reports parse errors inline; anything else shows as text.
    const span = document.createElement('span');
    span.className = 'math-error';
    span.textContent = `${tex} (${error instanceof Error ? error.message : String(error)})`;
    html = span.outerHTML;
  }
  cache.set(key, html);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
  return html;
}

/** Typesets every untypeset math placeholder under `root`; returns false if KaTeX is not loaded yet. */
export function typeset(root: ParentNode): boolean {
  const elements = root.querySelectorAll<HTMLElement>('[data-tex]:not([data-typeset])');
  if (elements.length === 0) return true;
  if (!katex) {
    void loadKatex().then(() => typeset(root));
    return false;
  }
  for (const el of elements) {
    const tex = el.dataset.tex ?? '';
    const display = el.classList.contains('math-display');
    el.innerHTML = renderCached(katex, tex, display);
    el.dataset.typeset = '';
  }
  return true;
}
