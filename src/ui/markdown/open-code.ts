/** The open block when it is a fenced code block: new text is appended as text nodes (cheap to lex). */
import type { Tokens } from 'marked';
import type { OpenBlock } from './block';
import { lex, renderTokens, sanitizeToFragment } from './markdown';
import { isCode } from './tokens';

export function codeBlock(token: Tokens.Code): OpenBlock | null {
  const element = sanitizeToFragment(renderTokens([token], {})).firstElementChild;
  const code = element?.querySelector('code');
  if (element?.tagName !== 'PRE' || !code) return null;
  const lang = token.lang;
  /** The text shown, as marked renders it (one final newline); the HTML parser drops NULs. */
  const shownText = (t: Tokens.Code) =>
    (t.text ? `${t.text.replace(/\n$/, '')}\n` : '').replace(/\0/g, '');
  let shown = shownText(token);
  let line = document.createTextNode(shown.slice(0, -1));
  const newline = document.createTextNode(shown.slice(-1));
  code.replaceChildren(line, newline);
  let last = token;

  return {
    element,
    lex(tail, known) {
      const tokens = lex(tail, known);
      const first = tokens[0];
      if (!isCode(first) || 'codeBlockStyle' in first || first.lang !== lang) return null;
      last = first;
      return tokens;
    },
    sync() {
      const want = shownText(last);
      if (want === shown) return;
      if (shown && want.startsWith(shown.slice(0, -1)) && want.endsWith('\n')) {
        // Append: complete lines close the current text node, the last line starts a new one.
        const added = want.slice(shown.length - 1, -1);
        const cut = added.lastIndexOf('\n') + 1;
        if (cut > 0) {
          line.appendData(added.slice(0, cut));
          line = document.createTextNode('');
          code.insertBefore(line, newline);
        }
        line.appendData(added.slice(cut));
      } else {
        line = document.createTextNode(want.slice(0, -1));
        newline.data = want.slice(-1);
        code.replaceChildren(line, newline);
      }
      shown = want;
    },
  };
}
