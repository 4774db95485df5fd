import { MAX_PAIRS } from './chunk';
import { DATASET_MESSAGES, type DatasetError } from './errors';
import { parseDatasetOutput } from './parse';
import type { DatasetSource, ValidationResult } from './types';
import { mergeChunkResults, validateEntries } from './validate';

/** One chunk of the source text and what became of it. */
export interface ChunkState {
  /** This chunk of the sample text. */
  text: string;
  /** Pairs asked of it. */
  pairs: number;
  status: 'pending' | 'running' | 'done' | 'failed';
  /** The model's reply so far (kept on failure, for the raw download). */
  raw: string;
  /** Parsed and validated reply (done, or failed with no valid entries). */
  result: ValidationResult | null;
  error: DatasetError | null;
}

export function chunkFailure(
  chunk: ChunkState,
  raw: string,
  error: DatasetError,
  result: ValidationResult | null = null,
): ChunkState {
  return { ...chunk, status: 'failed', raw, error, result };
}

/** Pairs written so far in a partial reply (counted by their `"completion"` keys). */
export function pairsSoFar(raw: string): number {
  return raw.match(/"completion"\s*:/g)?.length ?? 0;
}

/** Why a 'Format Input' request is refused before anything is generated, or null. */
export function requestProblem(
  request: { text: string; count: number; source: DatasetSource; hasToken: boolean },
  maxTextChars: number,
): DatasetError | null {
  const { text, count } = request;
  if (!text.trim())
    return { kind: 'empty-input', message: DATASET_MESSAGES.emptyInput, retryable: false };
  if (!Number.isInteger(count) || count < 1 || count > MAX_PAIRS)
    return {
      kind: 'bad-count',
      message: DATASET_MESSAGES.badCount(count, MAX_PAIRS),
      retryable: false,
    };
  if (text.length > maxTextChars)
    return {
      kind: 'too-long',
      message: DATASET_MESSAGES.tooLong(text.length, maxTextChars),
      retryable: false,
    };
  if (request.source === 'hosted' && !request.hasToken)
    return { kind: 'no-token', message: DATASET_MESSAGES.noToken, retryable: false };
  return null;
}

/**
 * A chunk whose reply arrived: parsed and validated. Not JSON, the wrong shape, an empty reply or
 * no valid pair at all make it `failed` (with its raw reply and a specific error); else `done`.
 */
export function settleChunk(chunk: ChunkState, raw: string, index: number): ChunkState {
  const parsed = parseDatasetOutput(raw);
  if (!parsed.ok) {
    const message =
      parsed.kind === 'not-json'
        ? DATASET_MESSAGES.notJson(parsed.detail)
        : parsed.kind === 'wrong-shape'
          ? DATASET_MESSAGES.wrongShape(parsed.detail)
          : DATASET_MESSAGES.emptyOutput;
    return chunkFailure(chunk, raw, { kind: parsed.kind, message, retryable: true });
  }
  const result = validateEntries(parsed.items, index);
  if (result.entries.length > 0) return { ...chunk, status: 'done', raw, result, error: null };
  const message = DATASET_MESSAGES.noValidEntries(result.invalid.length);
  return chunkFailure(chunk, raw, { kind: 'no-valid-entries', message, retryable: true }, result);
}

/** All chunks' validated results merged, duplicates across chunks removed. */
export function mergeChunks(chunks: readonly ChunkState[]): ValidationResult {
  return mergeChunkResults(chunks.flatMap((k) => (k.result ? [k.result] : [])));
}

/** Everything the model wrote, per chunk (for the raw download); '' when nothing yet. */
export function rawOutputOf(chunks: readonly ChunkState[]): string {
  if (!chunks.some((k) => k.raw)) return '';
  if (chunks.length === 1) return chunks[0]?.raw ?? '';
  return chunks.map((k, i) => `--- part ${i + 1} (${k.status}) ---\n${k.raw}`).join('\n\n');
}
