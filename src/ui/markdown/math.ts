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
    try {
      katex.render(tex, el, {
        ...KATEX_OPTIONS,
        displayMode: el.classList.contains('math-display'),
      });
    } catch (error) {
      // With throwOnError false KaTeX reports errors inline; anything else shows as text.
      el.textContent = `${tex} (${error instanceof Error ? error.message : String(error)})`;
    }
    el.dataset.typeset = '';
  }
  return true;
}
