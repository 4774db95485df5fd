/**
 * Incremental Markdown rendering for a streamed message: the per-update cost stays flat as the
 * message grows. Finished top-level blocks are rendered, sanitized and typeset once and kept as DOM
 * nodes; only the tail (the open block and what follows the last safe boundary) is lexed again.
 *
 * A block is finished when a blank line follows it and a later block starts on a complete line:
 * - a blank line ends every block except lists, indented code, fences, HTML blocks of the kinds
 *   that run to a closing tag, and display math (which cannot hold a blank line here); of these,
 *   unclosed fences and HTML blocks run to the end of the text, so they stay in the tail, and
 *   lists and indented code absorb their continuations into the same token, so they stay last;
 * - the later block's first line must be complete, since an unfinished line can still turn into
 *   a continuation of the list before it ("1. a\n\n2" becomes "1. a\n\n2. b").
 * - an HTML container left open (`<details>` … blank line … `</details>`) holds the blocks after it
 *   back until it closes, as they render inside it.
 * Reference-style link definitions can change earlier blocks: `finish()` settles them with one
 * full render.
 */
import type { Token, Tokens, TokensList } from 'marked';
import { extendsText, lex, renderTokens, sanitizeToFragment } from './markdown';
import { loadKatex, typeset } from './math';
import { openBlockFor, type OpenBlock } from './open-block';

export interface StreamingRenderer {
  /** Renders the message so far (the full text, not a delta). */
  update(fullText: string): void;
  /** The message is complete: final render (of `fullText`, or of the last text given). */
  finish(fullText?: string): void;
  /** Empties the container. */
  dispose(): void;
}

const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;
const BLANK_LINE_AT_END = /\n[ \t]*\n$/;
const CHUNK_SIZE = 32;

/** Elements whose open tag swallows the blocks after it (not void, no optional end tag). */
const TAG = /<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g;
const NOT_CONTAINERS = new Set(
  'area base br col embed hr img input link meta source track wbr p li dt dd option tr td th thead tbody tfoot colgroup rt rp'.split(
    ' ',
  ),
);

/** Open minus closed container tags in the raw HTML of a block (block HTML and inline tags). */
function htmlDepth(token: Token): number {
  const parts =
    token.type === 'html'
      ? [token.raw]
      : token.type === 'paragraph'
        ? (token.tokens ?? []).filter((t) => t.type === 'html').map((t) => t.raw)
        : [];
  let depth = 0;
  for (const part of parts)
    for (const [, close, name = '', selfClose] of part.matchAll(TAG))
      if (!selfClose && !NOT_CONTAINERS.has(name.toLowerCase())) depth += close ? -1 : 1;
  return depth;
}

/** Past this many tail tokens an unclosed HTML container no longer holds blocks back. */
const MAX_HELD_TOKENS = 64;

/** How many of `tokens` (lexed from `tail`) are finished blocks. */
export function finishedCount(tokens: Token[], tail: string): number {
  if (tokens.length < 2) return 0; // one block is never finished by itself (no scan of a long one)
  const lastLineStart = tail.lastIndexOf('\n') + 1;
  let count = 0;
  let offset = 0;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (offset >= lastLineStart) break; // this token starts on the unfinished last line
    if (
      i > 0 &&
      (depth <= 0 || i > MAX_HELD_TOKENS) &&
      token.type !== 'space' &&
      BLANK_LINE_AT_END.test(tail.slice(Math.max(0, offset - 64), offset))
    )
      count = i;
    depth += htmlDepth(token);
    offset += token.raw.length;
  }
  return count;
}

export function createStreamingRenderer(container: HTMLElement): StreamingRenderer {
  /** The last text rendered and its committed prefix (finished blocks). */
  let text = '';
  let committed = '';
  let finished = false;
  let open: HTMLElement | null = null;
  /** The open block kept as DOM with its finished parts (first child of `open`), if any. */
  let openBlock: OpenBlock | null = null;
  /**
   * Finished blocks go into chunks of CHUNK_SIZE, so an update lays out few siblings. The open
   * block's wrapper is the last child of the last chunk (`md-current`: laid out even when off
   * screen), so a finished open block stays where it is (moving it would lay it all out again).
   */
  let chunk: HTMLElement | null = null;
  /** Reference definitions in finished blocks. */
  let links: TokensList['links'] = {};

  const reset = () => {
    container.replaceChildren();
    text = '';
    committed = '';
    finished = false;
    open = null;
    openBlock = null;
    chunk = null;
    links = {};
  };

  /** The chunk for the next block: the last one, or a new one when it is full. */
  const currentChunk = (): HTMLElement => {
    const blocks = (chunk?.childElementCount ?? 0) - (open && open.parentNode === chunk ? 1 : 0);
    if (chunk && blocks < CHUNK_SIZE) return chunk;
    chunk?.classList.remove('md-current');
    chunk = document.createElement('div');
    chunk.className = 'md-chunk md-current';
    container.append(chunk);
    if (open) chunk.append(open); // the open wrapper stays last (it holds no kept block here)
    return chunk;
  };

  const appendFinished = (el: HTMLElement) => {
    const target = currentChunk();
    target.insertBefore(el, open && open.parentNode === target ? open : null);
  };

  const block = (html: string, className: string): HTMLElement => {
    const el = document.createElement('div');
    el.className = className;
    el.append(sanitizeToFragment(html));
    typeset(el);
    return el;
  };

  const render = (fullText: string, final: boolean) => {
    if (fullText === text && (finished || !final)) return;
    // Compared once per update (`committed` is a prefix of `text`).
    const extended = !finished && extendsText(fullText, text);
    // The fast path: plain words added to the open block's last text, nothing after the block,
    // and the text so far ends in what that Text shows (a trailing newline or space is not shown).
    if (
      !final &&
      extended &&
      open?.childNodes.length === 1 &&
      /\S/.test(text.at(-1) ?? ' ') && // not /\S$/ on the text: that scans all of it
      fullText.length > text.length &&
      openBlock?.append?.(fullText.slice(text.length))
    ) {
      text = fullText;
      return;
    }
    if (finished || !(extended || extendsText(fullText, committed))) reset();
    else if (!extended) openBlock = null; // the open block's text was rewritten
    text = fullText;
    const tail = fullText.slice(committed.length);
    let tokens = openBlock?.lex(tail, links) ?? null;
    if (!tokens) {
      openBlock = null;
      tokens = lex(tail, links);
    }
    const done = final ? tokens.length : finishedCount(tokens, tail);
    const newlyDone = tokens.slice(0, done);
    for (const token of newlyDone) {
      committed += token.raw;
      // Definitions of finished blocks are known to later tails (first definition wins).
      if (token.type === 'def') {
        const { tag, href, title } = token as Tokens.Def;
        links[tag] ??= { href, title };
      }
    }
    if (openBlock && open && done > 0) {
      // The open block is finished: its wrapper becomes a finished block where it is.
      openBlock.sync(true);
      while (open.childNodes.length > 1) open.lastChild?.remove();
      open.className = 'md-block';
      open = null;
      openBlock = null;
      newlyDone.shift();
    }
    // Newly finished blocks render together: an HTML container may span several of them.
    if (newlyDone.some((t) => t.type !== 'space'))
      appendFinished(block(renderTokens(newlyDone, links), 'md-block'));
    if (final) {
      open?.remove();
      open = null;
      chunk?.classList.remove('md-current');
      finished = true;
      return;
    }
    if (!open) {
      open = document.createElement('div');
      open.className = 'md-block md-open';
      currentChunk().append(open);
    }
    let rest = tokens.slice(done);
    const first = rest[0];
    if (openBlock) {
      openBlock.sync(false);
      rest = rest.slice(1);
    } else if (first && (openBlock = openBlockFor(first, links))) {
      open.replaceChildren(openBlock.element);
      openBlock.sync(false);
      rest = rest.slice(1);
    }
    // What follows the open block (e.g. the start of the next one) is rendered again each time.
    const keep = openBlock ? 1 : 0;
    while (open.childNodes.length > keep) open.lastChild?.remove();
    if (rest.length) {
      const fragment = sanitizeToFragment(renderTokens(rest, links));
      const ok = typeset(fragment);
      open.append(fragment);
      if (!ok) typeset(open);
    }
  };

  return {
    update: (fullText) => render(fullText, false),
    finish(fullText = text) {
      if (!REFERENCE_DEFINITION.test(fullText)) return render(fullText, true);
      if (finished && fullText === text) return;
      // Reference links can change earlier blocks: one full render settles them.
      reset();
      const tokens = lex(fullText);
      appendFinished(block(renderTokens(tokens, tokens.links), 'md-block'));
      text = committed = fullText;
      finished = true;
    },
    dispose: reset,
  };
}

const WARM_UP_TEXT =
  '# T\n\nA *b* `c` [d](https://e.f) $x^2$\n\n- g\n\n```ts\nh\n```\n\n| i |\n|---|\n| j |\n';

/**
 * Warms the renderer up off the critical path (its first run compiles marked, DOMPurify and
 * KaTeX, and KaTeX's first layout resolves its styles), so the first streamed update of the
 * first message stays within a frame. Loads KaTeX, still lazily, after the app's first load.
 */
export function warmUpRenderer(): Promise<void> {
  const el = document.createElement('div');
  const renderer = createStreamingRenderer(el);
  for (let i = 1; i <= WARM_UP_TEXT.length; i += 5) renderer.update(WARM_UP_TEXT.slice(0, i));
  renderer.finish(WARM_UP_TEXT);
  return loadKatex().then(
    () => undefined,
    () => undefined, // offline: formulas stay text until a later load succeeds
  );
}
