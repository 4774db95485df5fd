/**
 * The fast path of a streamed update: most tokens only add plain words to the text the open block
 * shows last (a paragraph's last line, a table row's last cell, a list item being written). Such a
 * delta is appended to that Text node (no lexing, rendering, sanitizing or typesetting; text data
 * is never parsed as HTML) when the result is provably what a full render would show:
 * - the Text node showed its source verbatim when the block last rendered it (checked then);
 * - the source and the delta hold no character that can open, close or escape an inline construct
 *   or an entity (`* _ ~ \` $ \\ < > & [ ] | @`), no line break, tab or control character;
 * - the result holds no autolink start (`www.`, `http://`, `https://`, `ftp://`) and ends with a
 *   non-space (a renderer trims trailing spaces);
 * - where the text starts a line (`lineStart`), its last line starts with a letter, so it cannot
 *   become a list item, heading, quote, rule or setext underline.
 * Anything else goes through the block's normal update.
 */

// eslint-disable-next-line no-control-regex -- control characters are never plain text
const NOT_PLAIN = /[*_~`$\\<>&[\]|@\t\r\n\u0000-\u001f\u007f\u2028\u2029]/u;
const AUTOLINK = /(?:https?|ftp):\/\/|www\./i;
const LETTER_FIRST = /^\p{L}/u;

export interface PlainText {
  node: Text;
  /** The source the node shows (its data is this, verbatim). */
  source: string;
  /** The text may start a line of its own (its last line must then start with a letter). */
  lineStart: boolean;
}

/** Whether `source` is plain: see the module comment. */
function plain(source: string, lineStart: boolean): boolean {
  if (
    NOT_PLAIN.test(source.replace(/\n/g, ' ')) ||
    AUTOLINK.test(source) ||
    !/\S/.test(source.at(-1) ?? ' ')
  )
    return false;
  const line = source.slice(source.lastIndexOf('\n') + 1);
  return !(lineStart || source.includes('\n')) || LETTER_FIRST.test(line);
}

/**
 * The plain text a block shows last, if `node` shows `source` verbatim and `source` is plain
 * (its newlines allowed: they come from the lexed source, and render as they are).
 */
export function plainText(
  node: ChildNode | undefined,
  source: string,
  lineStart: boolean,
): PlainText | null {
  if (!(node instanceof Text) || node.data !== source || !plain(source, lineStart)) return null;
  return { node, source, lineStart };
}

/**
 * Appends `delta` to `text` if the result stays plain; false otherwise. Checks only what the
 * delta can change: its own characters, an autolink start across the joint, the last character
 * (the last line's first letter is unchanged: the source ends with a non-space on that line).
 */
export function appendPlain(text: PlainText | null, delta: string): boolean {
  if (!text || NOT_PLAIN.test(delta) || !/\S/.test(delta.at(-1) ?? ' ')) return false;
  if (AUTOLINK.test(text.source.slice(-8) + delta)) return false;
  text.node.appendData(delta);
  text.source += delta;
  return true;
}
