import type { LoadResponse } from '../shared/worker-protocol';
import type { EventOf } from './worker-events';
/**
 * The per-file download list a model load shows, kept by the model machine and by the evaluation
 * machine (Compare loads its models itself): one set of updates for both.
 */

/** One file being downloaded (PRODUCT.md §3: file, progress, total). */
export interface ProgressItem {
  file: string;
  /** Percentage 0–100. */
  progress: number;
  total?: number | undefined;
}

/** The worker's `initiate`: a file starts (listed once, however often it is announced). */
export function fileInitiated(
  files: ProgressItem[],
  { file, total }: { file: string; total?: number | undefined },
): ProgressItem[] {
  if (files.some((f) => f.file === file)) return files;
  return [...files, { file, progress: 0, total }];
}

/** The worker's `progress`: a file's percentage (its total kept when this message has none). */
export function fileProgressed(
  files: ProgressItem[],
  { file, progress, total }: { file: string; progress: number; total?: number | undefined },
): ProgressItem[] {
  return files.map((f) => (f.file === file ? { file, progress, total: total ?? f.total } : f));
}

/** The worker's `done`: the file leaves the list. */
export function fileDone(files: ProgressItem[], file: string): ProgressItem[] {
  return files.filter((f) => f.file !== file);
}

type LoadProgressEvent<S extends 'loading' | 'initiate' | 'progress' | 'done'> = EventOf<
  Extract<LoadResponse, { status: S }>
>;

/**
 * What a machine waiting on a load does with the worker's four load reports, written once for the
 * model and evaluation machines: each re-enters `target` (restarting its stall timer) and runs the
 * machine's action of the same name (`setStatus`, `addFile`, `updateFile`, `removeFile`), which
 * each machine implements with the updates above.
 */
export function loadReports<const T extends string>(target: T) {
  return {
    'worker.loading': {
      target,
      reenter: true,
      actions: {
        type: 'setStatus',
        params: ({ event }: { event: LoadProgressEvent<'loading'> }) => event.message.data,
      },
    },
    'worker.initiate': {
      target,
      reenter: true,
      actions: {
        type: 'addFile',
        params: ({ event }: { event: LoadProgressEvent<'initiate'> }) => event.message,
      },
    },
    'worker.progress': {
      target,
      reenter: true,
      actions: {
        type: 'updateFile',
        params: ({ event }: { event: LoadProgressEvent<'progress'> }) => event.message,
      },
    },
    'worker.done': {
      target,
      reenter: true,
      actions: {
        type: 'removeFile',
        params: ({ event }: { event: LoadProgressEvent<'done'> }) => event.message.file,
      },
    },
  } as const;
}
