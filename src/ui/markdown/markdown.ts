/**
 * Markdown → sanitized HTML for assistant messages: marked with math extensions, then DOMPurify.
 * Math is not typeset here: it is emitted as `<span|div data-tex>` holding the source as text,
 * and typeset with KaTeX afterwards (see math.ts), so this module stays free of KaTeX.
 */
import {
  Lexer,
  Marked,
  Renderer,
  type Token,
  type Tokens,
  type TokenizerAndRendererExtension,
  type TokensList,
} from 'marked';
import DOMPurify from 'dompurify';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface MathToken {
  type: 'mathBlock' | 'mathInline';
  raw: string;
  tex: string;
  display: boolean;
}

/** The fields of a math token (made by the tokenizers below), read from marked's generic token. */
function mathToken({ tex, raw, display }: Tokens.Generic): Omit<MathToken, 'type'> {
  const source: unknown = tex;
  const text: unknown = raw;
  return {
    tex: typeof source === 'string' ? source : '',
    raw: typeof text === 'string' ? text : '',
    display: display === true,
  };
}

/** Math placeholder: the source stays readable as text until KaTeX arrives. */
function mathHtml(tex: string, display: boolean, raw: string, block: boolean): string {
  const tag = block ? 'div' : 'span';
  const cls = display ? 'math-display' : 'math-inline';
  return `<${tag} class="${cls}" data-tex="${escapeHtml(tex)}">${escapeHtml(raw)}</${tag}>`;
}

/** Any character but a blank line: display math never spans paragraphs (keeps streaming simple). */
const NO_BLANK = String.raw`(?:(?!\n[ \t]*\n)[\s\S])+?`;
const MATH_BLOCK = new RegExp(
  String.raw`^ {0,3}(?:\$\$(${NO_BLANK})\$\$|\\\[(${NO_BLANK})\\\])[ \t]*(?:\n|$)`,
);

const mathBlock: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start: (src) => /^ {0,3}(?:\$\$|\\\[)/m.exec(src)?.index,
  tokenizer(src) {
    const match = MATH_BLOCK.exec(src);
    if (!match) return undefined;
    const tex = (match[1] ?? match[2] ?? '').trim();
    return { type: 'mathBlock', raw: match[0], tex, display: true };
  },
  renderer: (token) => {
    const { tex, raw } = mathToken(token);
    return `${mathHtml(tex, true, raw.trim(), true)}\n`;
  },
};

const INLINE_MATH: [RegExp, boolean][] = [
  [/^\$\$([^$]+?)\$\$/, true],
  [/^\\\[([\s\S]+?)\\\]/, true],
  [/^\\\(([\s\S]+?)\\\)/, false],
  // $…$ with no space just inside the delimiters and no digit right after the closing one, so
  // "costs $5 and $10" stays text (the rule of pandoc).
  [/^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)/, false],
];

const mathInline: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start: (src) => /\$|\\[([]/.exec(src)?.index,
  tokenizer(src) {
    for (const [re, display] of INLINE_MATH) {
      const match = re.exec(src);
      if (match)
        return { type: 'mathInline', raw: match[0], tex: (match[1] ?? '').trim(), display };
    }
    return undefined;
  },
  renderer: (token) => {
    const { tex, raw, display } = mathToken(token);
    return mathHtml(tex, display, raw, false);
  },
};

const marked = new Marked({
  gfm: true,
  breaks: false,
  extensions: [mathBlock, mathInline],
  renderer: {
    // Images are never loaded from model output (remote images leak data and need the network):
    // they show as a link to the image instead.
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
    // Every table in a horizontal scrolling wrapper (a wide table scrolls, not the page): the one a
    // streamed table is split in (open-table.ts), so its end changes no element's place.
    table(token) {
      return `<div class="md-table">${Renderer.prototype.table.call(this, token)}</div>\n`;
    },
  },
});

/**
 * Tokenizes Markdown (block level, inline tokens included). `links` are reference definitions
 * known from earlier text, so a tail lexed on its own still resolves them.
 */
export function lex(markdown: string, links: TokensList['links'] = {}): TokensList {
  const lexer = new Lexer(marked.defaults);
  Object.assign(lexer.tokens.links, links);
  return lexer.lex(markdown);
}

/** Renders tokens (from `lex`) to unsanitized HTML. */
export function renderTokens(tokens: Token[], links: TokensList['links']): string {
  const list: TokensList = Object.assign(tokens.slice(), { links });
  return marked.parser(list);
}

/** Classes the renderer itself emits; any other class (e.g. the app's own) is dropped. */
const ALLOWED_CLASS = /^(?:language-[\w+#.-]+|math-inline|math-display|md-table)$/;

/** The sanitizer configuration: model output is untrusted HTML. */
export const SANITIZE_CONFIG = {
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'iframe',
    'frame',
    'object',
    'embed',
    'svg',
    'math',
    'img',
    'picture',
    'video',
    'audio',
    'source',
    'track',
    'link',
    'meta',
    'base',
  ],
  FORBID_ATTR: ['style', 'id', 'srcset', 'formaction', 'action', 'ping', 'background'],
  ALLOW_DATA_ATTR: false,
  ADD_ATTR: ['data-tex'],
  ADD_URI_SAFE_ATTR: ['data-tex'],
};

/** URL attributes: only http(s), mailto and in-page anchors (not relative, not other schemes). */
const URL_ATTRS = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'poster', 'cite']);
const ALLOWED_URL = /^(?:https?:|mailto:|#)/i;
// eslint-disable-next-line no-control-regex -- browsers ignore these in URLs, so must we
const URL_IGNORED = /[\u0000-\u0020\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g;

function addHooks(purifier: ReturnType<typeof DOMPurify>): void {
  // One hook after DOMPurify's own attribute checks (an uponSanitizeAttribute hook makes DOMPurify
  // copy its attribute allowlist on every call): URLs and classes are filtered here.
  purifier.addHook('afterSanitizeAttributes', (node) => {
    for (const name of URL_ATTRS) {
      const value = node.getAttribute(name);
      if (value !== null && !ALLOWED_URL.test(value.replace(URL_IGNORED, '')))
        node.removeAttribute(name);
    }
    const classes = node.getAttribute('class');
    if (classes !== null) {
      const kept = classes
        .split(/\s+/)
        .filter((c) => ALLOWED_CLASS.test(c))
        .join(' ');
      if (kept) node.setAttribute('class', kept);
      else node.removeAttribute('class');
    }
    if (node.tagName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  });
}

/**
 * Two sanitizers with the configuration parsed once (`setConfig`): one returns a string, one a
 * DocumentFragment (the renderer inserts it directly instead of parsing the HTML a second time).
 */
let purifiers: {
  text: ReturnType<typeof DOMPurify>;
  fragment: ReturnType<typeof DOMPurify>;
} | null = null;

function getPurifiers() {
  if (!purifiers) {
    const text = DOMPurify();
    const fragment = DOMPurify();
    addHooks(text);
    addHooks(fragment);
    text.setConfig(SANITIZE_CONFIG);
    fragment.setConfig({ ...SANITIZE_CONFIG, RETURN_DOM_FRAGMENT: true });
    purifiers = { text, fragment };
  }
  return purifiers;
}

export function sanitize(html: string): string {
  return getPurifiers().text.sanitize(html);
}

/** Sanitizes into a fragment ready to insert. */
export function sanitizeToFragment(html: string): DocumentFragment {
  const result: unknown = getPurifiers().fragment.sanitize(html);
  // null when the markup leaves no body to sanitize (e.g. a <frameset>): nothing is kept.
  return result instanceof DocumentFragment ? result : document.createDocumentFragment();
}

/** Full render: Markdown → sanitized HTML (what the naive per-token approach does every time). */
export function renderMarkdown(markdown: string): string {
  return sanitize(marked.parse(markdown, { async: false }));
}

/**
 * Whether `text` starts with `prefix`, checked on every update against the text shown last: V8's
 * `startsWith` compares character by character, string equality of a slice compares memory.
 */
export function extendsText(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length) === prefix;
}
