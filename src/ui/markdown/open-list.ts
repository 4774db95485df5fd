/**
 * The open block when it is a tight list written one item per line, nested by indentation (how
 * models write lists): marked lexes a nested list again at every level, so a deep list costs
 * O(depth²) per update. Here each complete line is read once and its item rendered once, as a
 * one-item list of its own; the open path (the last item of each level) stays as DOM, and only
 * the deepest item's line and the line being typed are rendered again.
 * The item being written is one element kept across updates and made a relayout boundary (see
 * `LiveItem`): a deep list's open path is otherwise laid out again, level by level, for every word.
 * A list ended by a blank line and a line that cannot continue it is returned as finished, as it is.
 * Anything else (a continuation line, a fence or HTML in an item, a task, a marker out of place, a
 * blank line followed by more of the list) returns null: the caller then renders the list whole.
 * One known difference from a whole render: marked keeps an item's trailing spaces when another
 * item of its list or a nested one follows (`<li>a <ul>`), and each line here is rendered alone,
 * so they are left out (whitespace before a block or at an item's end: nothing shows).
 */
import type { Token, Tokens } from 'marked';
import { extendsText, lex, renderTokens, sanitizeToFragment } from './markdown';
import { typeset } from './math';
import type { Links, OpenBlock } from './block';
import { appendPlain, plainText, type PlainText } from './plain-text';
import { isList } from './tokens';

/** A complete item line: indent, marker, spaces, content (which must not open a multi-line construct). */
const ITEM = /^( *)([-+*]|\d{1,9}[.)])( {1,4})([^\s>|<`~$[].*)$/;
const THEMATIC_BREAK = /^ *([-*_])(?: *\1){2,} *$/;

interface Level {
  list: Element;
  /** The marker's column, and its kind (bullet character or ordered delimiter). */
  indent: number;
  kind: string;
  /** The open (last) item, its content column and its own line (from its marker on). */
  item: Element;
  content: number;
  line: string;
}

interface Item {
  indent: number;
  kind: string;
  content: number;
  start: number;
  line: string;
}

function parseItem(line: string): Item | null {
  const m = ITEM.exec(line);
  if (!m || THEMATIC_BREAK.test(line)) return null;
  const [, spaces = '', marker = '', gap = ''] = m;
  const ordered = /\d/.test(marker);
  return {
    indent: spaces.length,
    kind: ordered ? marker.slice(-1) : marker,
    content: spaces.length + marker.length + gap.length,
    start: ordered ? Number(marker.slice(0, -1)) : 1,
    line: line.slice(spaces.length),
  };
}

/**
 * Renders `markdown` (one item) to its list element, or null if it is not one tight item; with
 * the source of the item's last inline token when that is text (what its last Text node shows).
 */
function renderList(
  markdown: string,
  links: Links,
): { element: Element; lastText: string | null } | null {
  const tokens = lex(markdown, links).filter((t) => t.type !== 'space');
  const list = tokens[0];
  if (tokens.length !== 1 || !isList(list) || list.loose) return null;
  if (list.items.length !== 1 || list.items.some((i) => i.task)) return null;
  const fragment = sanitizeToFragment(renderTokens(tokens, links));
  typeset(fragment);
  const element = fragment.firstElementChild;
  if (element?.tagName !== (list.ordered ? 'OL' : 'UL')) return null;
  const blocks = list.items[0]?.tokens ?? [];
  const last = blocks.length === 1 && blocks[0]?.type === 'text' ? blocks[0].tokens?.at(-1) : null;
  return { element, lastText: last?.type === 'text' ? last.raw : null };
}

/** An element's tag and attributes (a one-item list rendered again must match them). */
function shape(element: Element): string {
  return [
    element.tagName,
    ...element.getAttributeNames().map((n) => `${n}=${element.getAttribute(n)}`),
  ].join('\0');
}

/**
 * Removes an element's style attribute. Chromium syncs the attribute from the CSSOM lazily:
 * `removeAttribute` right after `el.style.x = …` leaves `style=""` behind; setting it first does not.
 */
function clearStyle(element: HTMLElement): void {
  element.setAttribute('style', '');
  element.removeAttribute('style');
}

/**
 * The item being written. Chromium lays out every ancestor of a changed node again, so a word
 * typed 200 levels deep lays out 400 boxes. Here the item's `li` is a relayout
 * boundary (`contain: size layout` and its measured height; its content in a block `span`, which
 * shows the same: the marker sits at its first line): a word typed lays out the item alone, and its
 * height is measured again after each change (the ancestors are laid out again only when it
 * changes: a new line). The same element takes the next render of the line; a complete line is
 * rendered fresh (no wrapper, no style), and `settle` unwraps it if the list ends mid-line.
 */
class LiveItem {
  readonly box = document.createElement('span');
  /** The height set on the item, or -1: not contained (not measured, or not rendered). */
  private height = -1;
  /** The host's and the item's shapes as rendered (before the item's style is set). */
  private readonly shapes: string;

  constructor(
    /** The element appended: the `li`, or a one-item list opening a new level. */
    readonly host: Element,
    readonly li: HTMLElement,
    /** Where it was appended, and how: a new level or an item of an open level. */
    readonly parent: Element,
    readonly newLevel: boolean,
    /** The last item's height: set before the item is put in, it spares a second layout. */
    guess: number,
  ) {
    this.shapes = `${shape(host)}\n${shape(li)}`;
    this.box.className = 'md-live';
    this.box.style.display = 'block';
    if (guess > 0) this.contain(guess);
  }

  /** Whether a render of the line for `parent` (as `host`) can go into this element. */
  fits(parent: Element, newLevel: boolean, host: Element, li: Element): boolean {
    return (
      this.parent === parent &&
      this.newLevel === newLevel &&
      parent.lastElementChild === this.host &&
      this.shapes === `${shape(host)}\n${shape(li)}`
    );
  }

  /** Shows `content` (the rendered item's children). */
  show(content: Iterable<Node>): void {
    this.box.replaceChildren(...content);
    if (!this.box.parentNode) this.li.replaceChildren(this.box);
  }

  /**
   * Sets the item's height to its content's (reads layout: of the item alone, unless it was just
   * put in). Not rendered (detached, or under `display: none`): no containment, as it cannot be
   * measured.
   */
  fit(): void {
    if (!this.li.isConnected || this.box.getClientRects().length === 0) {
      if (this.height >= 0) clearStyle(this.li);
      this.height = -1;
      return;
    }
    this.contain(this.box.getBoundingClientRect().height);
  }

  get measured(): number {
    return this.height;
  }

  private contain(height: number): void {
    if (height === this.height) return;
    if (this.height < 0) this.li.style.contain = 'size layout';
    this.height = height;
    this.li.style.height = `${height}px`;
  }

  /** The item as a whole render shows it: no wrapper, no style. */
  settle(): void {
    this.li.replaceChildren(...this.box.childNodes);
    clearStyle(this.li);
  }
}

export function listBlock(token: Tokens.List, links: Links): OpenBlock | null {
  let element: Element | null = null;
  /** `element` now (it is set in `addItem`, where control flow analysis does not follow it). */
  const built = (): Element | null => element;
  let levels: Level[] = [];
  let parsed = 0; // chars of the tail whose complete lines are in `levels`
  let live: LiveItem | null = null; // the item being written
  let liveHeight = 0; // the last item's height: the next one's first guess
  let text = ''; // the tail last seen
  let deepestExtra = false; // the deepest item shows a line inside it (rendered again next time)
  let tail: PlainText | null = null; // the text of the item being written, when plain

  /** Renders the deepest item again from its own line (plus `extra`, a line inside it). */
  const renderDeepest = (extra: string | null): boolean => {
    const deepest = levels.at(-1);
    const list =
      deepest && renderList(extra === null ? deepest.line : `${deepest.line}\n${extra}`, links);
    const li = list?.element.firstElementChild;
    if (!deepest || !li) return false;
    deepest.item.replaceChildren(...li.childNodes);
    return true;
  };

  /** Removes the item being written (a complete line is rendered fresh, in its place). */
  const dropLive = () => {
    live?.host.remove();
    live = null;
  };

  /**
   * Shows the line being typed: `host` (a one-item list opening a new level, or its `li`) for
   * `parent`, in the element of the item being written when it fits (see LiveItem).
   */
  const showLive = (parent: Element, newLevel: boolean, list: Element, li: HTMLElement) => {
    const content = [...li.childNodes];
    if (live?.fits(parent, newLevel, list, li)) live.show(content);
    else {
      dropLive();
      const host = newLevel ? list : li;
      live = new LiveItem(host, li, parent, newLevel, liveHeight);
      live.show(content);
      parent.append(host);
    }
    live.fit();
    liveHeight = live.measured;
    return content;
  };

  /** Adds a complete (or, when `typing`, a partial) item line; false if it does not fit. */
  const addItem = (item: Item, typing: boolean): boolean => {
    const deepest = levels.at(-1);
    let level: number;
    if (!deepest) level = 0;
    else if (item.indent >= deepest.content && item.indent <= deepest.content + 3) {
      if ((item.kind === '.' || item.kind === ')') && item.start !== 1) return false; // an ordered list interrupts a paragraph only from 1
      level = levels.length;
    } else {
      level = levels.findIndex((l) => l.indent === item.indent && l.kind === item.kind);
      if (level < 0) return false;
    }
    const rendered = renderList(item.line, links);
    const li = rendered?.element.firstElementChild;
    if (!rendered || !(li instanceof HTMLElement)) return false;
    const list = rendered.element;
    if (typing) {
      const parent = level === levels.length ? deepest?.item : levels[level]?.list;
      if (!parent) return false;
      const content = showLive(parent, level === levels.length, list, li);
      // The fast path: the item's text, or the text after its last inline construct when a
      // space parts them (words appended cannot extend it: an autolink ends at a space).
      const after = rendered.lastText;
      tail =
        content.length === 1
          ? plainText(content[0], item.line.slice(item.content - item.indent), true)
          : after !== null && /^\s/.test(after)
            ? plainText(content.at(-1), after, false)
            : null;
      return true;
    }
    if (level === levels.length) {
      // A new level: the parent's line is final now (no line below it can change it).
      if (deepest && !renderDeepest(null)) return false;
      (deepest?.item ?? null)?.append(list);
      if (!deepest) element = list;
      levels.push({ ...item, list, item: li });
    } else {
      const parent = levels[level];
      if (!parent) return false; // (found above)
      parent.list.append(li);
      levels = levels.slice(0, level + 1);
      levels[level] = { ...parent, item: li, content: item.content, line: item.line };
    }
    return true;
  };

  /**
   * A blank line after the complete lines: the list ends there if the next line cannot continue
   * it (it starts at the margin with no list marker) or is not written yet; returns the list's
   * length, or -1 (a line that may continue it: the caller renders the list whole).
   */
  const ended = (source: string): number => {
    const next = source.slice(parsed).replace(/^(?:[ \t]*\n)+/, '');
    if (next.trim() !== '' && !/^[^\s\d+*-]/.test(next)) return -1;
    dropLive();
    if (deepestExtra && !renderDeepest(null)) return -1;
    deepestExtra = false;
    return parsed;
  };

  /**
   * Reads the tail (the list so far and what follows it): the length of the list's part of it
   * (less than the tail once the list ended), or -1 if the list cannot be kept this way.
   */
  const read = (source: string): number => {
    tail = null;
    if (!extendsText(source, text.slice(0, parsed))) return -1;
    text = source;
    let end = source.indexOf('\n', parsed);
    if (end >= 0) {
      dropLive(); // complete lines come first; the line being typed is rendered after them
      // The deepest item showed a line inside it that is now a line of its own.
      if (deepestExtra && !renderDeepest(null)) return -1;
      deepestExtra = false;
    }
    while (end >= 0) {
      const line = source.slice(parsed, end);
      if (line.trim() === '') return levels.length ? ended(source) : -1;
      const item = parseItem(line);
      if (!item || !addItem(item, false)) return -1;
      parsed = end + 1;
      end = source.indexOf('\n', parsed);
    }
    const rest = source.slice(parsed);
    const deepest = levels.at(-1);
    if (!deepest) return -1; // no complete line yet
    // The deepest item only needs its own line again after it showed a line inside it.
    if (deepestExtra && !renderDeepest(null)) return -1;
    deepestExtra = false;
    if (rest.trim() === '') {
      dropLive();
      return source.length;
    }
    const item = parseItem(rest);
    if (item && addItem(item, true)) return source.length;
    tail = null;
    const indent = rest.length - rest.trimStart().length;
    // Inside the deepest item (a setext underline, a continuation): render its line with it.
    if (indent >= deepest.content) {
      dropLive();
      deepestExtra = renderDeepest(rest.slice(deepest.indent));
      return deepestExtra ? source.length : -1;
    }
    // A bare marker starts an empty item at the level of its column.
    const bare = /^ *([-+*]|\d{1,9}[.)]) *$/.exec(rest);
    const kind = bare?.[1]?.replace(/^\d+/, '');
    const level = levels.find((l) => l.indent === indent && l.kind === kind);
    const list = level ? renderList(rest.slice(indent), links)?.element : null;
    const li = list?.firstElementChild;
    if (level && list && li instanceof HTMLElement) {
      showLive(level.list, false, list, li);
      return source.length;
    }
    dropLive();
    // A lazy continuation of the deepest item's paragraph (kept as written).
    return !bare && deepest.indent === 0 && (deepestExtra = renderDeepest(rest))
      ? source.length
      : -1;
  };

  if (token.loose || read(token.raw) !== token.raw.length) return null;
  const root = built();
  if (!root) return null;

  return {
    element: root,
    lex(source, known): Token[] | null {
      const end = read(source);
      if (end < 0) return null;
      const list = { ...token, raw: source.slice(0, end) };
      return end === source.length ? [list] : [list, ...lex(source.slice(end), known)];
    },
    sync(final) {
      // The DOM was brought up to date while reading the lines.
      if (final) live?.settle();
    },
    append(delta) {
      if (!appendPlain(tail, delta)) return false;
      live?.fit();
      return true;
    },
  };
}
