/**
 * The open block when it is a paragraph: its finished inline parts (up to a safe split point, see
 * `splitPoint`) stay as DOM; the rest is lexed as the continuation of a paragraph line
 * (`x ` + rest) and its nodes replaced.
 */
import type { Token, Tokens } from 'marked';
import type { BlockOptions, Links, OpenBlock } from './block';
import { lex } from './markdown';
import { nodes } from './nodes';
import { appendPlain, plainText, type PlainText } from './plain-text';
import { isParagraph } from './tokens';

/** Characters that can open an inline construct closed by later text. */
const OPENERS = /[*_~`[\]<>$\\|]/;
const SAFE_TYPES = new Set([
  'codespan',
  'strong',
  'em',
  'del',
  'link',
  'image',
  'mathInline',
  'br',
]);

function safe(token: Token): boolean {
  if (token.type === 'text') return !OPENERS.test(token.raw);
  if (token.type === 'escape') return token.raw !== '\\(' && token.raw !== '\\[';
  return SAFE_TYPES.has(token.type);
}

/**
 * How many of a paragraph's inline tokens are final: every one of them is a closed construct or
 * text without a possible opener, and the last is text ending with a space inside a line (so the
 * rest, lexed after `x `, is read as the same continuation). Lines holding `|` are never split
 * (with the next line they could still become a table header).
 */
export function splitPoint(tokens: Token[], text: string): number {
  let split = 0;
  let offset = 0;
  for (let i = 0; i < tokens.length - 1; i++) {
    const token = tokens[i];
    const next = tokens[i + 1];
    if (!token || !next || !safe(token)) break; // (both exist: i + 1 < length)
    offset += token.raw.length;
    if (token.type !== 'text' || !token.raw.endsWith(' ') || /^\s/.test(next.raw)) continue;
    if (next.type === 'br') continue;
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const lineEnd = text.indexOf('\n', offset);
    if (!text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).includes('|')) split = i + 1;
  }
  return split;
}

/** Frozen inline nodes after the last segment from which a segment is cut (see `cutSegment`). */
const SEGMENT_NODES = 16;
/**
 * Segments go into groups of this many, groups into top-level groups of this many (both `md-seg`
 * blocks too): the paragraph keeps few children to lay out. Only new segments move: moving a
 * segment or group already on the page makes Chromium lay all of it out again.
 */
const SEGMENT_GROUP = 16;

/**
 * Where a new line starts inside `node` (a top-level child of an inline formatting context whose
 * lines start at `left`), after its first line above `top`: the node itself (offset 0) or a text
 * offset; null if none. Reads layout, which is clean between frames.
 */
function lineStartIn(node: ChildNode, left: number, top: number): number | null {
  if (node instanceof Element) {
    const rects = node.getClientRects();
    const first = rects[0];
    return first && Math.abs(first.left - left) < 0.5 && first.top > top ? 0 : null;
  }
  if (!(node instanceof Text) || node.length < 2) return null;
  const range = document.createRange();
  const rectAt = (offset: number) => {
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    return range.getClientRects()[0];
  };
  const last = rectAt(node.length - 1);
  if (!last || last.top <= top) return null;
  // The first character on the last line: the one after the last that sits above it.
  let lo = 0; // a character above the last line, or the node start
  let hi = node.length - 1; // a character on the last line
  if ((rectAt(0)?.top ?? last.top) >= last.top) return null; // no break inside the node
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((rectAt(mid)?.top ?? last.top) >= last.top) hi = mid;
    else lo = mid;
  }
  const start = rectAt(hi);
  return start && Math.abs(start.left - left) < 0.5 ? hi : null;
}

/** Synthetic start of a paragraph line: the rest of a split line lexes as its continuation. */
const CONTINUATION = 'x ';

/**
 * A long paragraph is one inline formatting context that Chromium lays out whole when it changes,
 * so while it streams its finished lines are moved into `md-seg` blocks (cut exactly where the
 * browser broke a line, so nothing moves on screen) and only the last lines are laid out again.
 * When the paragraph is complete the segments are unwrapped: the DOM is the whole render's.
 * Without `splitLines` (a whole render: steps sized to a slice, not one per token) the paragraph
 * grows in place and has nothing to unwrap.
 */
export function paragraphBlock(
  token: Tokens.Paragraph,
  links: Links,
  { splitLines }: BlockOptions,
): OpenBlock | null {
  if (token.tokens.some((t) => t.type === 'html')) return null;
  const element = document.createElement('p');
  let live: ChildNode[] = [];
  let shown: string[] = []; // the keys (see `sync`) of the live nodes, one per node
  let frozen = 0; // chars of the block whose nodes are in `element` for good
  let last = token; // the paragraph from `frozen` on, after CONTINUATION once frozen > 0
  let prefix = 0;
  let tops = 0; // top-level groups of segments (the paragraph's first children)
  let top: HTMLElement | null = null; // the last top-level group, and its last group
  let group: HTMLElement | null = null;
  let loose = 0; // frozen nodes after the segments
  let tail: PlainText | null = null; // the live text, when plain (the fast path)

  /** Nodes of inline tokens, the synthetic prefix removed when `strip`. */
  const inline = (tokens: Token[], strip: boolean): ChildNode[] => {
    const paragraph: Tokens.Paragraph = { type: 'paragraph', raw: '', text: '', tokens };
    const p = nodes([paragraph], links, () => element).firstElementChild;
    const children = [...(p?.childNodes ?? [])];
    const first = children[0];
    if (strip && first instanceof Text) {
      const data = first.data.slice(CONTINUATION.length);
      if (data) first.data = data;
      else children.shift();
    }
    return children;
  };

  /** The last top-level group of segments (the paragraph's nodes after the segments follow it). */
  const lastSegmentGroup = (): Element | null => {
    const group = element.children[tops - 1];
    return group?.classList.contains('md-seg') ? group : null;
  };

  /** Puts `nodes` before `before` (or last), a Text last among them joined to a Text after it. */
  const insertJoined = (nodes: ChildNode[], before: ChildNode | null) => {
    const last = nodes.at(-1);
    if (last instanceof Text && before instanceof Text) {
      before.insertData(0, last.data);
      last.remove();
      nodes = nodes.slice(0, -1);
    }
    for (const node of nodes) element.insertBefore(node, before);
  };

  /** Moves the frozen nodes before the last line start among them into a new segment. */
  const cutSegment = () => {
    const frozenNodes = [...element.childNodes].slice(tops, tops + loose);
    const firstRect = frozenNodes[0] && rectOf(frozenNodes[0]);
    if (!firstRect) return;
    const box = element.getBoundingClientRect();
    const left = box.left + element.clientLeft + parseFloat(getComputedStyle(element).paddingLeft);
    for (let i = frozenNodes.length - 1; i >= 0; i--) {
      const node = frozenNodes[i];
      const at = node ? lineStartIn(node, left, firstRect.top + 1) : null;
      if (!node || at === null) continue;
      let cut = i;
      if (at > 0 && node instanceof Text) {
        node.splitText(at);
        cut = i + 1;
      }
      const moved = [...element.childNodes].slice(tops, tops + cut);
      if (moved.length === 0) return;
      const segment = newSegment();
      segment.append(...moved);
      if (!group || group.childElementCount >= SEGMENT_GROUP) {
        if (!top || top.childElementCount >= SEGMENT_GROUP) {
          top = newSegment();
          element.insertBefore(top, element.childNodes[tops] ?? null);
          tops++;
        }
        group = newSegment();
        top.append(group);
      }
      group.append(segment);
      loose = element.childNodes.length - tops - live.length;
      return;
    }
  };

  return {
    get element() {
      return element;
    },
    lex(tail, known) {
      if (frozen === 0) {
        const tokens = lex(tail, known);
        const first = tokens[0];
        if (!isParagraph(first)) return null;
        last = first;
        prefix = 0;
        return tokens;
      }
      const rest = tail.slice(frozen);
      if (rest.slice(0, rest.indexOf('\n') + 1 || undefined).includes('|')) return null;
      const tokens = lex(CONTINUATION + rest, known);
      const first = tokens[0];
      if (!isParagraph(first)) return null;
      const firstInline = first.tokens?.[0];
      if (firstInline?.type !== 'text') return null;
      if (!firstInline.raw.startsWith(CONTINUATION) || first.tokens?.some((t) => t.type === 'html'))
        return null;
      last = first;
      prefix = CONTINUATION.length;
      tokens[0] = { ...first, raw: tail.slice(0, frozen) + first.raw.slice(prefix) };
      return tokens;
    },
    sync(final) {
      // Layout is clean here (the last update was laid out): cut before changing anything.
      if (splitLines && !final && loose >= SEGMENT_NODES && element.isConnected) cutSegment();
      const tokens = last.tokens;
      const split = final ? 0 : splitPoint(tokens, last.text);
      // The tokens from `frozen` on, keyed by type and source (the synthetic start removed, a
      // token that was only that start left out): one node each when rendered.
      const keys: { index: number; key: string }[] = [];
      tokens.forEach((t, index) => {
        const raw = index === 0 ? t.raw.slice(prefix) : t.raw;
        if (raw) keys.push({ index, key: `${t.type}\0${raw}` });
      });
      // The live nodes whose tokens are unchanged stay as they are (a formula is not typeset,
      // styled and laid out again for every word after it); the rest is rendered.
      let kept = 0;
      if (shown.length === live.length)
        while (kept < keys.length && kept < shown.length && shown[kept] === keys[kept]?.key) kept++;
      for (const node of live.slice(kept)) node.remove();
      const from = keys[kept]?.index;
      const fresh = from === undefined ? [] : inline(tokens.slice(from), from === 0 && prefix > 0);
      element.append(...fresh);
      let shownNodes = [...live.slice(0, kept), ...fresh];
      let cut = keys.findIndex((k) => k.index >= split);
      if (cut < 0) cut = keys.length;
      if (shownNodes.length === keys.length) {
        shown = keys.slice(cut).map((k) => k.key);
      } else {
        // Not one node per token: the finished part and the live part are rendered apart.
        for (const node of shownNodes) node.remove();
        const done = split > 0 ? inline(tokens.slice(0, split), prefix > 0) : [];
        const rest = inline(tokens.slice(split), split === 0 && prefix > 0);
        shownNodes = [...done, ...rest];
        cut = done.length;
        element.append(...shownNodes);
        shown = [];
      }
      live = shownNodes.slice(cut);
      if (split > 0) {
        loose += cut;
        for (const t of tokens.slice(0, split)) frozen += t.raw.length;
        frozen -= prefix;
      }
      const strip = split === 0 && prefix > 0;
      const rest = tokens.slice(split);
      // One text token shown as one Text node: later plain words can be appended to it.
      const only = rest.length === 1 && rest[0]?.type === 'text' && live.length === 1;
      const text = only ? rest[0] : undefined;
      tail = text
        ? plainText(
            live[0],
            text.raw.slice(strip ? CONTINUATION.length : 0),
            frozen === 0 && split === 0,
          )
        : null;
      if (final) tail = null;
      if (final && tops === 0) joinText(element); // the finished and live parts' text joins
    },
    settle(size) {
      // The segments' nodes go back into the paragraph where they are shown, last segment first, a
      // whole segment (one line) at a time: the lines before it and the lines after it stay where
      // they are, so a step lays out and paints again little more than the line that moved. (Part
      // of a line moved would start a line of its own and move every line after it.)
      for (let moved = 0; tops > 0 && moved < size;) {
        const topGroup = lastSegmentGroup();
        if (!topGroup) break;
        const leaf = innermostLast(topGroup);
        const nodes = [...leaf.childNodes];
        insertJoined(nodes, topGroup.nextSibling);
        moved += Math.max(1, nodes.length);
        // The empty segment is removed, and each group it leaves empty.
        let empty: Element | null = leaf;
        while (empty && empty !== element && empty.childNodes.length === 0) {
          const parent: Element | null = empty.parentElement;
          empty.remove();
          if (empty === topGroup) tops--;
          empty = parent;
        }
      }
      if (tops > 0) return false;
      top = group = null;
      joinText(element);
      return true;
    },
    append: (delta) => appendPlain(tail, delta),
  };
}

/** The last segment holding no segment, at or under `segment`. */
function innermostLast(segment: Element): Element {
  let at = segment;
  while (at.lastElementChild?.classList.contains('md-seg')) at = at.lastElementChild;
  return at;
}

/** Joins adjacent Text children of `element` (the whole render has one per run of text). */
function joinText(element: Element): void {
  for (let node = element.firstChild; node;) {
    const next: ChildNode | null = node.nextSibling;
    if (node instanceof Text && next instanceof Text) {
      node.appendData(next.data);
      next.remove();
    } else node = next;
  }
}

function newSegment(): HTMLElement {
  const segment = document.createElement('span');
  segment.className = 'md-seg';
  return segment;
}

/** The first client rect of a node (element or text). */
function rectOf(node: ChildNode): DOMRect | undefined {
  if (node instanceof Element) return node.getClientRects()[0];
  const range = document.createRange();
  range.selectNodeContents(node);
  return range.getClientRects()[0];
}
