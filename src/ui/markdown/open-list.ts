/**
 * The open block when it is a tight list written one item per line, nested by indentation (how
 * models write lists): marked lexes a nested list again at every level, so a deep list costs
 * O(depth²) per update. Here each complete line is read once and its item rendered once, as a
 * one-item list of its own; the open path (the last item of each level) stays as DOM, and only
 * the deepest item's line and the line being typed are rendered again.
 * Anything else (a blank line, a continuation line, a fence or HTML in an item, a task, a marker
 * out of place) returns null: the caller then renders the list whole, as before.
 */
import type { Token, Tokens, TokensList } from 'marked';
import { lex, renderTokens, sanitizeToFragment } from './markdown';
import { typeset } from './math';
import type { OpenBlock } from './open-block';
import { appendPlain, plainText, type PlainText } from './plain-text';

type Links = TokensList['links'];

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

/** Renders `markdown` (a list) to its list element, or null if it is not one tight list. */
function renderList(markdown: string, links: Links, items: number): Element | null {
  const tokens = lex(markdown, links).filter((t) => t.type !== 'space');
  const list = tokens[0] as Tokens.List | undefined;
  if (tokens.length !== 1 || list?.type !== 'list' || list.loose) return null;
  if (list.items.length !== items || list.items.some((i) => i.task)) return null;
  const fragment = sanitizeToFragment(renderTokens(tokens, links));
  typeset(fragment);
  const element = fragment.firstElementChild;
  return element?.tagName === (list.ordered ? 'OL' : 'UL') ? element : null;
}

export function listBlock(token: Tokens.List, links: Links): OpenBlock | null {
  let element: Element | null = null;
  let levels: Level[] = [];
  let parsed = 0; // chars of the tail whose complete lines are in `levels`
  let partial: Element[] = []; // nodes shown for the line being typed
  let text = ''; // the tail last seen
  let deepestExtra = false; // the deepest item shows a line inside it (rendered again next time)
  let tail: PlainText | null = null; // the text of the item being written, when plain

  /** Renders the deepest item again from its own line (plus `extra`, a line inside it). */
  const renderDeepest = (extra: string | null): boolean => {
    const deepest = levels.at(-1);
    const list =
      deepest && renderList(extra === null ? deepest.line : `${deepest.line}\n${extra}`, links, 1);
    const li = list?.firstElementChild;
    if (!deepest || !li) return false;
    deepest.item.replaceChildren(...li.childNodes);
    return true;
  };

  /** Adds a complete (or, when `live`, a partial) item line; false if it does not fit. */
  const addItem = (item: Item, live: boolean): boolean => {
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
    const list = renderList(item.line, links, 1);
    const li = list?.firstElementChild;
    if (!list || !li) return false;
    if (live && li.childNodes.length === 1)
      tail = plainText(
        li.firstChild ?? undefined,
        item.line.slice(item.content - item.indent),
        true,
      );
    if (level === levels.length) {
      // A new level: the parent's line is final now (no line below it can change it).
      if (deepest && !live && !renderDeepest(null)) return false;
      (deepest?.item ?? null)?.append(list);
      if (!deepest) element = list;
      if (live) partial.push(list);
      else levels.push({ ...item, list, item: li });
    } else {
      const parent = levels[level] as Level;
      parent.list.append(li);
      if (live) partial.push(li);
      else {
        levels = levels.slice(0, level + 1);
        levels[level] = { ...parent, item: li, content: item.content, line: item.line };
      }
    }
    return true;
  };

  const read = (source: string): boolean => {
    for (const node of partial) node.remove();
    partial = [];
    tail = null;
    if (!source.startsWith(text.slice(0, parsed))) return false;
    text = source;
    const before = parsed;
    let end = source.indexOf('\n', parsed);
    while (end >= 0) {
      const item = parseItem(source.slice(parsed, end));
      if (!item || !addItem(item, false)) return false;
      parsed = end + 1;
      end = source.indexOf('\n', parsed);
    }
    const rest = source.slice(parsed);
    const deepest = levels.at(-1);
    if (!deepest) return false; // no complete line yet
    // A new complete line is rendered fresh; the deepest item only needs its own line again
    // after it showed a line inside it.
    if (deepestExtra && parsed === before && !renderDeepest(null)) return false;
    deepestExtra = false;
    if (rest.trim() === '') return true;
    const item = parseItem(rest);
    if (item && addItem(item, true)) return true;
    tail = null;
    const indent = rest.length - rest.trimStart().length;
    // Inside the deepest item (a setext underline, a continuation): render its line with it.
    if (indent >= deepest.content)
      return (deepestExtra = renderDeepest(rest.slice(deepest.indent)));
    // A bare marker starts an empty item at the level of its column.
    const bare = /^ *([-+*]|\d{1,9}[.)]) *$/.exec(rest);
    const kind = bare?.[1]?.replace(/^\d+/, '');
    const level = levels.find((l) => l.indent === indent && l.kind === kind);
    const li = level && renderList(rest.slice(indent), links, 1)?.firstElementChild;
    if (level && li) {
      level.list.append(li);
      partial.push(li);
      return true;
    }
    // A lazy continuation of the deepest item's paragraph (kept as written).
    return !bare && deepest.indent === 0 && (deepestExtra = renderDeepest(rest));
  };

  if (token.loose || !read(token.raw)) return null;
  const root = element as Element | null;
  if (!root) return null;

  return {
    element: root,
    lex(tail: string): Token[] | null {
      if (!read(tail)) return null;
      return [{ ...token, raw: tail }];
    },
    sync() {
      // The DOM was brought up to date while reading the lines.
    },
    append: (delta) => appendPlain(tail, delta),
  };
}
