import { isRecord } from '../guards';
import { countSentences } from './sentences';
import type { DatasetEntry, InvalidEntry, ValidationResult } from './types';

/** Completions must have between these many sentences (the prompt asks for 2–3). */
export const MIN_SENTENCES = 1;
export const MAX_SENTENCES = 4;

/** Key used to spot duplicates: case, spacing and trailing punctuation do not matter. */
export function duplicateKey(entry: DatasetEntry): string {
  return entry.prompt
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s?.!]+$/, '')
    .trim();
}

/** Why one entry is not acceptable, or null when it is. */
export function entryProblem(entry: DatasetEntry): string | null {
  if (!entry.prompt.trim()) return 'empty prompt';
  if (!entry.completion.trim()) return 'empty completion';
  const sentences = countSentences(entry.completion);
  if (sentences < MIN_SENTENCES || sentences > MAX_SENTENCES)
    return `completion has ${sentences} sentences (${MIN_SENTENCES}–${MAX_SENTENCES} allowed)`;
  return null;
}

function asEntry(item: unknown): DatasetEntry | string {
  if (!isRecord(item)) return 'not an object';
  const record = item;
  if (typeof record.prompt !== 'string') return 'prompt missing or not text';
  if (typeof record.completion !== 'string') return 'completion missing or not text';
  return { prompt: record.prompt.trim(), completion: record.completion.trim() };
}

/**
 * Validates the items of one chunk's output: each must be an object with two non-empty strings,
 * `prompt` and `completion`, the completion 1–4 sentences long. Duplicates (same question, also
 * against `seen`, the keys of entries already accepted) are removed. Every rejected item is
 * returned with its reason; nothing is dropped silently. `seen` is updated in place.
 */
export function validateEntries(
  items: readonly unknown[],
  chunk = 0,
  seen: Set<string> = new Set(),
): ValidationResult {
  const entries: DatasetEntry[] = [];
  const invalid: InvalidEntry[] = [];
  items.forEach((item, index) => {
    const entry = asEntry(item);
    const reason =
      typeof entry === 'string'
        ? entry
        : (entryProblem(entry) ?? (seen.has(duplicateKey(entry)) ? 'duplicate question' : null));
    if (reason !== null || typeof entry === 'string') {
      invalid.push({ index, chunk, reason: reason ?? 'invalid', item });
      return;
    }
    seen.add(duplicateKey(entry));
    entries.push(entry);
  });
  return { entries, invalid };
}

/** Removes later duplicates from already-valid entries (merging chunks); returns what was removed. */
export function mergeChunkResults(results: readonly ValidationResult[]): ValidationResult {
  const seen = new Set<string>();
  const entries: DatasetEntry[] = [];
  const invalid: InvalidEntry[] = [];
  results.forEach((result, chunk) => {
    invalid.push(...result.invalid);
    result.entries.forEach((entry, index) => {
      const key = duplicateKey(entry);
      if (seen.has(key)) invalid.push({ index, chunk, reason: 'duplicate question', item: entry });
      else {
        seen.add(key);
        entries.push(entry);
      }
    });
  });
  return { entries, invalid };
}
