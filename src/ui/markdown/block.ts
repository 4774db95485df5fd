/**
 * What every kind of open block (the last top-level block of a streamed message, still growing)
 * offers the renderer. Its own module so the kinds (open-paragraph.ts, open-table.ts, open-list.ts,
 * open-code.ts) and the dispatcher (open-block.ts) import it without importing one another.
 */
import type { Token, TokensList } from 'marked';

export type Links = TokensList['links'];

export interface BlockOptions {
  /**
   * Split the block for layout as it grows (a streamed message: every update must stay within a
   * frame's fraction); false in a whole render, whose steps are sized to a slice each.
   */
  splitLines: boolean;
}

export interface OpenBlock {
  /** The block's element (`table`, `p` or `pre`), owned by the caller's open wrapper. */
  readonly element: Element;
  /**
   * Lexes `tail` (the text from this block's start to the end) reading again only the block's
   * unfinished part; the first token stands for this block and has its real `raw`.
   */
  lex(tail: string, links: Links): Token[] | null;
  /** Brings the DOM up to date with the last `lex`; `final`: the block is complete. */
  sync(final: boolean): void;
  /**
   * The fast path (plain-text.ts): shows `delta`, appended to the text, by appending it to the
   * text shown last, when that is provably what `lex` + `sync` would show; false otherwise.
   */
  append?(delta: string): boolean;
  /**
   * After `sync(true)`, when the block was split for layout while it streamed: moves about `size`
   * of its nodes back into the whole render's DOM; true when it is that DOM. Run in slices.
   */
  settle?(size: number): boolean;
}
