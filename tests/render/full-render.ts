import { renderMarkdown } from '../../src/ui/markdown/markdown';
import { typeset } from '../../src/ui/markdown/math';
import { normalize } from './shown-html';

/** One-shot render of `text`, typeset like the renderer's (KaTeX loaded first), as comparable HTML. */
export function fullRender(text: string): string {
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(text);
  typeset(el);
  return normalize(el.innerHTML);
}
