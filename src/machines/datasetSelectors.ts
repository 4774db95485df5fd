/** Selectors of the dataset machine's snapshot, for the panel (read with `useSelector`). */
import type { ChunkState } from '../shared/dataset/chunk-state';
import { pairsSoFar, rawOutputOf } from '../shared/dataset/chunk-state';
import { entryProblem } from '../shared/dataset/validate';
import type { DatasetSnapshot } from './datasetMachine';

/** The machine's phase, for the panel. */
export const selectPhase = (s: DatasetSnapshot) =>
  s.matches('generating')
    ? 'generating'
    : s.matches('review')
      ? 'review'
      : s.matches('failed')
        ? 'failed'
        : 'idle';
export const selectEntries = (s: DatasetSnapshot) => s.context.entries;
export const selectInvalid = (s: DatasetSnapshot) => s.context.invalid;
export const selectError = (s: DatasetSnapshot) => s.context.error;
export const selectInputError = (s: DatasetSnapshot) => s.context.inputError;
export const selectName = (s: DatasetSnapshot) => s.context.name;

export interface ChunkProgress {
  status: ChunkState['status'];
  chars: number;
  pairs: number;
  pairsAsked: number;
}
/** Progress per chunk: characters and pairs received so far. */
export const selectProgress = (s: DatasetSnapshot): ChunkProgress[] =>
  s.context.chunks.map((k) => ({
    status: k.status,
    chars: k.raw.length,
    pairs: k.result?.entries.length ?? pairsSoFar(k.raw),
    pairsAsked: k.pairs,
  }));
/** Everything the model wrote, per chunk (for the raw download; '' when nothing yet). */
export const selectRawOutput = (s: DatasetSnapshot) => rawOutputOf(s.context.chunks);
/** Per reviewed row: why it is not acceptable (after editing), or null. */
export const selectRowProblems = (s: DatasetSnapshot) => s.context.entries.map(entryProblem);
/** Entries of finished chunks while in `failed` (offered for review). */
export const selectPartialCount = (s: DatasetSnapshot) =>
  s.context.chunks.reduce((n, k) => n + (k.result?.entries.length ?? 0), 0);
