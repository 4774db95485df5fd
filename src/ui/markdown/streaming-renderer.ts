/**
 * Incremental Markdown rendering for a streamed message: the per-update cost stays flat as the
 * message grows. Finished top-level blocks are rendered, sanitized and typeset once and kept as DOM
 * nodes; only the tail (the last, possibly unfinished block) is lexed and rendered again.
 *
 * A block is finished when another block starts after it: Markdown cannot change an earlier block
 * from later text, except through reference-style link definitions, which `finish()` handles by a
 * single full render.
 */
import type { Token } from 'marked';
import { lex, renderTokens, sanitize } from './markdown';
import { typeset } from './math';

export interface StreamingRenderer {
  /** Renders the message so far (the full text, not a delta). */
  update(fullText: string): void;
  /** The message is complete: final render. */
  finish(fullText: string): void;
  dispose(): void;
}

const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

export function createStreamingRenderer(container: HTMLElement): StreamingRenderer {
  let text = '';
  /** Characters of `text` that belong to committed blocks. */
  let committed = 0;
  let open: HTMLElement | null = null;

  const reset = () => {
    container.replaceChildren();
    text = '';
    committed = 0;
    open = null;
  };

  const appendBlock = (html: string): HTMLElement => {
    const block = document.createElement('div');
    block.className = 'md-block';
    block.innerHTML = sanitize(html);
    typeset(block);
    container.insertBefore(block, open);
    return block;
  };

  const render = (fullText: string, final: boolean) => {
    if (!fullText.startsWith(text.slice(0, committed))) reset();
    text = fullText;
    const tokens = lex(fullText.slice(committed));
    // The last non-space token may still grow: everything before it is finished.
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]?.type === 'space') last -= 1;
    const finished: Token[] = final ? tokens.slice() : tokens.slice(0, Math.max(last, 0));
    const tail: Token[] = final ? [] : tokens.slice(Math.max(last, 0));
    for (const token of finished) {
      committed += token.raw.length;
      if (token.type !== 'space') appendBlock(renderTokens([token], tokens.links));
    }
    if (!open) {
      open = document.createElement('div');
      open.className = 'md-block md-open';
      container.append(open);
    }
    open.innerHTML = sanitize(renderTokens(tail, tokens.links));
    typeset(open);
  };

  return {
    update: (fullText) => render(fullText, false),
    finish(fullText) {
      if (REFERENCE_DEFINITION.test(fullText)) {
        // Reference links can change earlier blocks: one full render settles them.
        reset();
        const block = document.createElement('div');
        block.className = 'md-block';
        const tokens = lex(fullText);
        block.innerHTML = sanitize(renderTokens(tokens, tokens.links));
        container.append(block);
        typeset(block);
        text = fullText;
        committed = fullText.length;
        return;
      }
      render(fullText, true);
    },
    dispose: reset,
  };
}
