/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'mt',
  'jr',
  'sr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'approx',
  'no',
  'inc',
  'ltd',
  'co',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'a.m',
  'p.m',
  'u.s',
  'fig',
  'km',
  'ft',
]);

/**
 * Counts sentences: runs of text ended by `.`, `!`, `?` or `…` followed by a space or the end.
 * Decimal numbers ("3.5"), common abbreviations ("Dr.", "e.g.") and single initials ("J.") do
 * not end a sentence; a last sentence without a full stop still counts. Empty text: 0.
 */
export function countSentences(text: string): number {
  const trimmed = text.trim();
  if (!trimmed) return 0;
  let count = 0;
  const re = /[.!?…]+["')\]]*(?=\s|$)/g;
  let last = 0;
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    const before = trimmed.slice(last, m.index);
    const word = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? '';
    const isAbbreviation =
      m[0] === '.' && (ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word) || word.includes('.'));
    if (isAbbreviation && m.index + m[0].length < trimmed.length) continue;
    if (before.trim()) count += 1;
    last = m.index + m[0].length;
  }
  if (trimmed.slice(last).trim()) count += 1;
  return count;
}
