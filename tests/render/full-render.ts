import { renderMarkdown } from '../../src/ui/markdown/markdown';
import { typeset } from '../../src/ui/markdown/math';
import { normalize } from './shown-html';

/**
 * Whole renders already made, by text: a test streams the same text more than once (char by char,
 * then word by word, whose prefixes are among the char-by-char ones; or a prefix, then the rest),
 * and a whole render depends on the text alone once KaTeX is loaded. Long texts are not kept.
 */
const made = new Map<string, string>();
const KEEP_CHARS = 4000;
const KEEP_TEXTS = 5000;

/** One-shot render of `text`, typeset like the renderer's (KaTeX loaded first), as comparable HTML. */
export function fullRender(text: string): string {
  const kept = made.get(text);
  if (kept !== undefined) return kept;
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(text);
  const typesetAll = typeset(el);
  const html = normalize(el.innerHTML);
  // Only a render with its formulas typeset is the same render the next time.
  if (typesetAll && text.length <= KEEP_CHARS) {
    if (made.size >= KEEP_TEXTS) made.clear();
    made.set(text, html);
  }
  return html;
}
