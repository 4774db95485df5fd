/**
 * ROUGE-L F1 over words: the one definition of the Compare view's score (Lin 2004, "ROUGE: A
 * Package for Automatic Evaluation of Summaries", §3.1, with β = 1).
 *
 * - Words: the text is put in Unicode NFC and lower-cased; a word is a run of letters and
 *   numbers (`\p{L}`, `\p{N}`, with their combining marks `\p{M}`), except that every Chinese or
 *   Japanese character (Han, Hiragana, Katakana, and the prolonged sound mark ー) is a word of its
 *   own, since those scripts do not put spaces between words. Everything else — punctuation,
 *   symbols, spaces — only separates words.
 * - LCS: the length of the longest common subsequence of the two word lists (in order, gaps
 *   allowed).
 * - Precision = LCS ÷ words of the answer, recall = LCS ÷ words of the reference,
 *   F1 = 2·P·R ÷ (P + R). 0 when either side has no words (as the `rouge-score` package does).
 */

/** A CJK character (one word each), or a run of other letters/numbers (with combining marks). */
const WORD =
  /(?=[\p{L}\p{N}])[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30FC]|(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30FC])[\p{L}\p{N}\p{M}])+/gu;

/** The words the score compares (see the module comment). */
export function words(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? [];
}

/** Length of the longest common subsequence (two rows of the dynamic programme). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  // The shorter list indexes the row, so memory is O(min(n, m)).
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  let previous = new Array<number>(short.length + 1).fill(0);
  let current = new Array<number>(short.length + 1).fill(0);
  for (const word of long) {
    for (let j = 1; j <= short.length; j++) {
      current[j] =
        short[j - 1] === word
          ? (previous[j - 1] ?? 0) + 1
          : Math.max(previous[j] ?? 0, current[j - 1] ?? 0);
    }
    [previous, current] = [current, previous];
  }
  return previous[short.length] ?? 0;
}

export interface RougeL {
  precision: number;
  recall: number;
  f1: number;
}

/** ROUGE-L of `answer` against `reference` (precision, recall and F1, each 0–1). */
export function rougeL(answer: string, reference: string): RougeL {
  const candidate = words(answer);
  const target = words(reference);
  const lcs = lcsLength(candidate, target);
  if (lcs === 0) return { precision: 0, recall: 0, f1: 0 };
  const precision = lcs / candidate.length;
  const recall = lcs / target.length;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

/** ROUGE-L F1 of `answer` against `reference`, 0–1. */
export function rougeLF1(answer: string, reference: string): number {
  return rougeL(answer, reference).f1;
}
