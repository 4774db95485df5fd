/**
 * The open block of a streamed message (the last top-level block, still growing) kept as DOM whose
 * finished parts are never lexed, sanitized or typeset again, so an update costs in proportion to
 * the change, not to the block:
 * a table (open-table.ts) keeps its finished rows, a paragraph (open-paragraph.ts) its finished
 * inline parts, a list written one item per line (open-list.ts) its finished lines, a fenced code
 * block (open-code.ts) its text. This module only picks the kind; the interface is block.ts.
 * `lex` returns null when the frozen part no longer applies (the block turned into something else,
 * e.g. a paragraph into a setext heading): the caller then renders the block again from scratch.
 */
import type { Token } from 'marked';
import type { BlockOptions, Links, OpenBlock } from './block';
import { codeBlock } from './open-code';
import { listBlock } from './open-list';
import { paragraphBlock } from './open-paragraph';
import { tableBlock } from './open-table';
import { isCode, isList, isParagraph, isTable } from './tokens';

/** The open block kept as DOM for `token`, or null: the caller renders the block whole each time. */
export function openBlockFor(token: Token, links: Links, options: BlockOptions): OpenBlock | null {
  if (isTable(token)) return tableBlock(token, links);
  if (isList(token)) return listBlock(token, links);
  if (isParagraph(token)) return paragraphBlock(token, links, options);
  if (isCode(token) && !('codeBlockStyle' in token)) return codeBlock(token);
  return null;
}
