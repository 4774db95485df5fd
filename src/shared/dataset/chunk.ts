/** Largest chunk of source text per request, in characters, by source. */
export const CHUNK_CHARS = { hosted: 8000, local: 1500 } as const;
/** Longest text accepted at all (about 100 chunks for the hosted model). */
export const MAX_TEXT_CHARS = 200_000;
export { MAX_PAIRS } from './types';

function splitSentences(paragraph: string): string[] {
  return paragraph.match(/[^.!?…]+(?:[.!?…]+["')\]]*\s*|$)/g) ?? [paragraph];
}

/** Cuts a piece longer than `max` at the last space before the limit (or hard, without one). */
function hardSplit(piece: string, max: number): string[] {
  const out: string[] = [];
  let rest = piece;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const cut = space > max / 2 ? space : max;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Packs pieces into runs of at most `max` characters joined by `sep`. */
function pack(pieces: string[], max: number, sep: string): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const joined = current ? current + sep + piece : piece;
    if (joined.length <= max) current = joined;
    else {
      if (current) chunks.push(current);
      current = piece;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * Splits a text into chunks of at most `maxChars` characters at paragraph boundaries (blank
 * lines). A paragraph longer than that is split at sentence ends, and a sentence longer than that
 * at spaces. Whitespace-only text gives no chunks.
 */
export function chunkText(text: string, maxChars: number): string[] {
  if (maxChars < 1) throw new RangeError('maxChars must be at least 1');
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
  const pieces = paragraphs.flatMap((p) =>
    p.length <= maxChars
      ? [p]
      : pack(
          splitSentences(p).flatMap((s) => hardSplit(s.trim(), maxChars)),
          maxChars,
          ' ',
        ),
  );
  return pack(pieces, maxChars, '\n\n');
}

/**
 * How many pairs to ask of each chunk: `total` spread in proportion to the chunks' lengths, at
 * least one each (so a long text asked for few pairs yields one per chunk).
 */
export function pairsPerChunk(chunks: readonly string[], total: number): number[] {
  const length = chunks.reduce((sum, c) => sum + c.length, 0) || 1;
  const shares = chunks.map((c) => (total * c.length) / length);
  const counts = shares.map((s) => Math.max(1, Math.floor(s)));
  let missing = total - counts.reduce((a, b) => a + b, 0);
  const order = shares
    .map((s, i) => ({ i, frac: s - Math.floor(s) }))
    .sort((a, b) => b.frac - a.frac);
  for (let k = 0; missing > 0 && order.length > 0; k = (k + 1) % order.length, missing -= 1) {
    const slot = order[k];
    if (slot) counts[slot.i] = (counts[slot.i] ?? 0) + 1;
  }
  return counts;
}
