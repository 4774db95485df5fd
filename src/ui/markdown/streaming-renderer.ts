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
import type { Token, TokensList } from 'marked';
import { extendsText, lex, renderTokens, sanitizeToFragment } from './markdown';
import { loadKatex, typeset } from './math';
import type { OpenBlock } from './block';
import { openBlockFor } from './open-block';
import { isDef } from './tokens';

export interface StreamingRenderer {
  /** Renders the message so far (the full text, not a delta). */
  update(fullText: string): void;
  /**
   * The message is complete: final render (of `fullText`, or of the last text given). With a
   * `schedule`, long work goes on in slices after the first (see `RendererOptions`).
   */
  finish(fullText?: string): void;
  /** Whether slices are still to run (only with a `schedule`). */
  readonly pending: boolean;
  /** Empties the container and cancels the slices still to run. */
  dispose(): void;
}

export interface RendererOptions {
  /**
   * Runs `task` later, in a task of its own (e.g. the next animation frame); returns a cancel
   * function. Given, a whole render (`finish` of text not shown yet) and a long block's end run in
   * slices of about SLICE_MS each, so the page never freezes; the message grows as they land.
   * Not given, everything is done at once (tests, the warm-up).
   */
  schedule?: (task: () => void) => () => void;
}

/** Main-thread time a slice may take, and the time its units aim at. */
const SLICE_MS = 12;
const UNIT_MS = 6;
/** The first and the smallest step of each kind of work (an update costs some time whatever its size). */
const CHARS = { first: 400, least: 100 };
const NODES = { first: 16, least: 8 };

/** A resumable piece of work: does about `size` units, returns true when nothing is left. */
interface Job {
  run(size: number): boolean;
  size: number;
  least: number;
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
  for (const [i, token] of tokens.entries()) {
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

export function createStreamingRenderer(
  container: HTMLElement,
  { schedule }: RendererOptions = {},
): StreamingRenderer {
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
  /** Work left for later slices, the whole render among it (and the text it renders). */
  let jobs: Job[] = [];
  let whole: { job: Job; text: string } | null = null;
  let cancelSlice: (() => void) | null = null;

  /** Runs jobs for one slice, forcing the layout each unit causes so it is measured here. */
  const slice = () => {
    cancelSlice = null;
    const start = performance.now();
    for (let job = jobs[0]; job && performance.now() - start < SLICE_MS; job = jobs[0]) {
      const t0 = performance.now();
      const done = job.run(job.size);
      void container.offsetHeight;
      const took = performance.now() - t0;
      if (done) {
        jobs.shift();
        if (whole?.job === job) whole = null;
      } else if (took < UNIT_MS / 2) job.size *= 2;
      else if (took > UNIT_MS) job.size = Math.max(job.least, Math.floor(job.size / 2));
    }
    if (jobs.length > 0 && schedule) cancelSlice ??= schedule(slice); // once (a job may queue one)
  };

  /** Queues `run`; without a schedule it runs to the end now. */
  const queue = (
    run: (size: number) => boolean,
    { first, least }: { first: number; least: number },
  ): Job => {
    const job = { run, size: first, least };
    if (!schedule) {
      while (!run(Infinity));
      return job;
    }
    jobs.push(job);
    cancelSlice ??= schedule(slice);
    return job;
  };

  const dropWhole = () => {
    if (whole) jobs = jobs.filter((job) => job !== whole?.job);
    whole = null;
  };

  const reset = () => {
    cancelSlice?.();
    cancelSlice = null;
    jobs = [];
    whole = null;
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

  /**
   * Shows `fullText`; `final`: it is complete; `splitLines`: a new open paragraph is split into
   * line segments as it grows (not in a whole render's steps, see renderWhole).
   */
  const render = (fullText: string, final: boolean, splitLines = true) => {
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
      if (isDef(token)) {
        const { tag, href, title } = token;
        links[tag] ??= { href, title };
      }
    }
    if (openBlock && open && done > 0) {
      // The open block is finished: its wrapper becomes a finished block where it is.
      openBlock.sync(true);
      while (open.childNodes.length > 1) open.lastChild?.remove();
      open.className = 'md-block';
      // A block split for layout while it streamed becomes one element again, in slices.
      const ending = openBlock;
      if (ending.settle?.(0) === false) queue((size) => ending.settle?.(size) ?? true, NODES);
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
    } else if (first && (openBlock = openBlockFor(first, links, { splitLines }))) {
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

  /**
   * The whole render in slices: the text streamed in steps sized to fit a slice, then final. Its
   * paragraphs grow in place, not split into line segments: a step's layout is timed in its
   * slice, and nothing is left to unwrap at the end (unwrapping repaints the whole paragraph
   * every frame).
   */
  const renderWhole = (fullText: string) => {
    if (finished || !extendsText(fullText, text)) reset(); // before queueing: reset drops jobs
    let at = text.length;
    const job: Job = queue((size) => {
      at = Math.min(fullText.length, at + size);
      render(fullText.slice(0, at), at === fullText.length, false);
      return at === fullText.length;
    }, CHARS);
    whole = { job, text: fullText };
    cancelSlice?.();
    slice(); // the first slice now: a short message shows at once
  };

  return {
    update(fullText) {
      dropWhole();
      render(fullText, false);
    },
    finish(fullText = text) {
      if (whole?.text === fullText) return;
      dropWhole();
      if (REFERENCE_DEFINITION.test(fullText)) {
        if (finished && fullText === text) return;
        // Reference links can change earlier blocks: one full render settles them (at once: such
        // definitions are rare in model output).
        reset();
        const tokens = lex(fullText);
        appendFinished(block(renderTokens(tokens, tokens.links), 'md-block'));
        text = committed = fullText;
        finished = true;
        return;
      }
      if (schedule && !(finished && fullText === text)) renderWhole(fullText);
      else render(fullText, true);
    },
    get pending() {
      return jobs.length > 0;
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
