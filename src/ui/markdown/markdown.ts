/**
 * Markdown → sanitized HTML for assistant messages: marked with math extensions, then DOMPurify.
 * Math is not typeset here: it is emitted as `<span|div data-tex>` holding the source as text,
 * and typeset with KaTeX afterwards (see math.ts), so this module stays free of KaTeX.
 */
import { Marked, type Token, type TokenizerAndRendererExtension, type TokensList } from 'marked';
import DOMPurify from 'dompurify';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface MathToken {
  type: 'mathBlock' | 'mathInline';
  raw: string;
  tex: string;
}

function mathHtml(tex: string, display: boolean, raw: string): string {
  const tag = display ? 'div' : 'span';
  return `<${tag} class="${display ? 'math-display' : 'math-inline'}" data-tex="${escapeHtml(tex)}">${escapeHtml(raw)}</${tag}>`;
}

const mathBlock: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start: (src) => src.match(/^ {0,3}(\$\$|\\\[)/m)?.index,
  tokenizer(src) {
    const match = /^ {0,3}(?:\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\])[ \t]*(?:\n|$)/.exec(src);
    if (!match) return undefined;
    return { type: 'mathBlock', raw: match[0], tex: (match[1] ?? match[2] ?? '').trim() };
  },
  renderer: (token) => `${mathHtml((token as unknown as MathToken).tex, true, token.raw.trim())}\n`,
};

const mathInline: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start: (src) => src.match(/\$|\\\(/)?.index,
  tokenizer(src) {
    // $$…$$ inline, \(…\), or $…$ with no space inside the delimiters and no digit right after
    // the closing one, so "costs $5 and $10" stays text.
    const match =
      /^\$\$([^$]+?)\$\$/.exec(src) ??
      /^\\\(([\s\S]+?)\\\)/.exec(src) ??
      /^\$(?!\s)((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)/.exec(src);
    if (!match) return undefined;
    return { type: 'mathInline', raw: match[0], tex: (match[1] ?? '').trim() };
  },
  renderer: (token) => mathHtml((token as unknown as MathToken).tex, false, token.raw),
};

const marked = new Marked({ gfm: true, breaks: false, extensions: [mathBlock, mathInline] });

/** Tokenizes Markdown (block level, inline tokens included). */
export function lex(markdown: string): TokensList {
  return marked.lexer(markdown);
}

/** Renders tokens (from `lex`) to unsanitized HTML. */
export function renderTokens(tokens: Token[], links: TokensList['links']): string {
  const list: TokensList = Object.assign(tokens.slice(), { links });
  return marked.parser(list);
}

const purifier = DOMPurify();
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/** The sanitizer configuration: model output is untrusted HTML. */
export const SANITIZE_CONFIG = {
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'iframe',
    'object',
    'embed',
    'svg',
    'math',
  ],
  FORBID_ATTR: ['style', 'srcset', 'formaction', 'action'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  ALLOW_DATA_ATTR: true,
};

export function sanitize(html: string): string {
  return purifier.sanitize(html, SANITIZE_CONFIG);
}

/** Full render: Markdown → sanitized HTML (what the naive per-token approach does every time). */
export function renderMarkdown(markdown: string): string {
  return sanitize(marked.parse(markdown) as string);
}
