/**
 * A fine-tuning run on the local training service:
 * idle → starting → running → finished | failed | cancelled. While running, a `pollRun` actor is
 * invoked every `pollInterval` (2000 ms): log tail + run status; the last `current/total` gives
 * the progress, finished when it reaches the total. Poll failures are ignored (spec), but after
 * `unreachableAfter` in a row the snapshot says the service is unreachable; the run is kept.
 * A run id given as input (a page reload) is resumed. HTTP is provided at the edge.
 */
import {
  assertEvent,
  assign,
  emit,
  fromPromise,
  setup,
  type ErrorActorEvent,
  type SnapshotFrom,
} from 'xstate';
import { LOG_TAIL, type RunInfo, type TrainRequest } from '../shared/training-api';
import { nextProgress } from '../shared/training-progress';

export interface StartTrainingInput {
  request: TrainRequest;
}
export interface StartTrainingOutput {
  runId: string;
}
export interface PollRunInput {
  runId: string;
  tail: number;
}
export interface PollRunOutput {
  lines: string[];
  run: RunInfo;
}
export interface CancelRunInput {
  runId: string;
}

export interface TrainingInput {
  /** A run started before a page reload, to pick up again. */
  resumeRunId?: string | null;
  /** Poll failures in a row before the service counts as unreachable (default 3). */
  unreachableAfter?: number;
}

export interface TrainingContext {
  runId: string | null;
  /** 0–100, two decimals, never decreasing during a run. */
  percent: number;
  /** The last log lines (tail 10). */
  lines: string[];
  run: RunInfo | null;
  /** Poll failures in a row; reset by a successful poll. */
  pollFailures: number;
  unreachableAfter: number;
  /** The last poll or cancel error, for the unreachable warning. */
  lastError: string | null;
  /** Why the run failed (state `failed`). */
  failure: string | null;
}

export type TrainingEvent =
  { type: 'training.start'; request: TrainRequest } | { type: 'training.cancel' };

/** Emitted when POST /train is refused: the UI shows `message` (the server's text) in an alert. */
export type TrainingEmitted = { type: 'training.startFailed'; message: string };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The HTTP status carried by an actor's error (structural: machines do not import actors). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function failureText(run: RunInfo): string {
  if (run.state === 'interrupted')
    return run.error ?? 'The run was interrupted when the training service stopped.';
  if (run.error) return run.error;
  if (run.exit_code !== null) return `The training script exited with code ${run.exit_code}.`;
  if (run.signal) return `The training script was killed by ${run.signal}.`;
  return 'The training script failed.';
}

const startTrainingPlaceholder = fromPromise<StartTrainingOutput, StartTrainingInput>(() => {
  throw new Error('startTraining actor not provided');
});
const pollRunPlaceholder = fromPromise<PollRunOutput, PollRunInput>(() => {
  throw new Error('pollRun actor not provided');
});
const getRunPlaceholder = fromPromise<RunInfo, { runId: string }>(() => {
  throw new Error('getRun actor not provided');
});
const cancelRunPlaceholder = fromPromise<RunInfo, CancelRunInput>(() => {
  throw new Error('cancelRun actor not provided');
});

const isFailedRun = (run: RunInfo) => run.state === 'failed' || run.state === 'interrupted';

export const trainingMachine = setup({
  types: {
    context: {} as TrainingContext,
    events: {} as TrainingEvent,
    // All of TrainingInput is optional, so the linter thinks this assertion does nothing; it
    // declares the machine's input type.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    input: {} as TrainingInput,
    emitted: {} as TrainingEmitted,
  },
  actors: {
    startTraining: startTrainingPlaceholder,
    pollRun: pollRunPlaceholder,
    getRun: getRunPlaceholder,
    cancelRun: cancelRunPlaceholder,
  },
  delays: {
    /** The log is polled every 2000 ms. */
    pollInterval: 2000,
  },
  guards: {
    hasResumeId: ({ context }) => context.runId !== null,
    runIsLive: (_, run: RunInfo) => run.state === 'running',
    runSucceeded: (_, run: RunInfo) => run.state === 'succeeded',
    runFailed: (_, run: RunInfo) => isFailedRun(run),
    runCancelled: (_, run: RunInfo) => run.state === 'cancelled',
    /** Spec: finished when the last logged step count reaches the total; or the script ended 0. */
    pollFinished: (_, { context, output }: { context: TrainingContext; output: PollRunOutput }) =>
      nextProgress(context.percent, output.lines).reachedTotal || output.run.state === 'succeeded',
    isNotFound: (_, error: unknown) => statusOf(error) === 404,
  },
  actions: {
    clearRun: assign({
      runId: null,
      percent: 0,
      lines: [],
      run: null,
      pollFailures: 0,
      lastError: null,
      failure: null,
    }),
    storeRunId: assign({ runId: (_, runId: string) => runId }),
    applyPoll: assign(({ context }, output: PollRunOutput) => {
      const progress = nextProgress(context.percent, output.lines);
      return {
        percent: output.run.state === 'succeeded' ? 100 : progress.percent,
        lines: output.lines,
        run: output.run,
        pollFailures: 0,
        lastError: null,
      };
    }),
    applyRun: assign(({ context }, run: RunInfo) => ({
      run,
      percent: Math.max(context.percent, run.state === 'succeeded' ? 100 : run.progress),
    })),
    countPollFailure: assign({
      pollFailures: ({ context }) => context.pollFailures + 1,
      lastError: (_, error: unknown) => messageOf(error),
    }),
    storeFailure: assign({ failure: (_, run: RunInfo) => failureText(run) }),
    storeGone: assign({
      failure: ({ context }) =>
        `The training service no longer knows run ${context.runId ?? ''} (was it restarted with another data folder?).`,
    }),
    storeCancelError: assign({ lastError: (_, error: unknown) => messageOf(error) }),
    emitStartFailed: emit((_, error: unknown) => ({
      type: 'training.startFailed' as const,
      message: messageOf(error),
    })),
  },
}).createMachine({
  id: 'training',
  context: ({ input }) => ({
    runId: input.resumeRunId ?? null,
    percent: 0,
    lines: [],
    run: null,
    pollFailures: 0,
    unreachableAfter: input.unreachableAfter ?? 3,
    lastError: null,
    failure: null,
  }),
  initial: 'boot',
  states: {
    boot: {
      always: [{ guard: 'hasResumeId', target: 'resuming' }, { target: 'idle' }],
    },
    /** After a reload: where is the run we were watching? */
    resuming: {
      invoke: {
        src: 'getRun',
        input: ({ context }) => ({ runId: context.runId ?? '' }),
        onDone: [
          {
            guard: { type: 'runIsLive', params: ({ event }) => event.output },
            target: 'running.polling',
            actions: { type: 'applyRun', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'runSucceeded', params: ({ event }) => event.output },
            target: 'finished',
            actions: { type: 'applyRun', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'runCancelled', params: ({ event }) => event.output },
            target: 'cancelled',
            actions: { type: 'applyRun', params: ({ event }) => event.output },
          },
          {
            target: 'failed',
            actions: [
              { type: 'applyRun', params: ({ event }) => event.output },
              { type: 'storeFailure', params: ({ event }) => event.output },
            ],
          },
        ],
        onError: [
          {
            guard: {
              type: 'isNotFound',
              params: ({ event }: { event: ErrorActorEvent }) => event.error,
            },
            target: 'idle',
            actions: 'clearRun',
          },
          // Service down at reload: keep the run and keep polling (unreachable after a few).
          {
            target: 'running.waiting',
            actions: {
              type: 'countPollFailure',
              params: ({ event }: { event: ErrorActorEvent }) => event.error,
            },
          },
        ],
      },
    },
    idle: {
      on: { 'training.start': { target: 'starting' } },
    },
    starting: {
      entry: 'clearRun',
      invoke: {
        src: 'startTraining',
        input: ({ event }) => {
          assertEvent(event, 'training.start');
          return { request: event.request };
        },
        onDone: {
          target: 'running',
          actions: { type: 'storeRunId', params: ({ event }) => event.output.runId },
        },
        // Spec: a non-OK start shows the server's text in an alert and returns to idle.
        onError: {
          target: 'idle',
          actions: {
            type: 'emitStartFailed',
            params: ({ event }: { event: ErrorActorEvent }) => event.error,
          },
        },
      },
    },
    running: {
      initial: 'waiting',
      on: { 'training.cancel': { target: '.cancelling' } },
      states: {
        waiting: {
          after: { pollInterval: { target: 'polling' } },
        },
        polling: {
          invoke: {
            src: 'pollRun',
            input: ({ context }) => ({ runId: context.runId ?? '', tail: LOG_TAIL }),
            onDone: [
              {
                guard: { type: 'runFailed', params: ({ event }) => event.output.run },
                target: '#training.failed',
                actions: [
                  { type: 'applyPoll', params: ({ event }) => event.output },
                  { type: 'storeFailure', params: ({ event }) => event.output.run },
                ],
              },
              {
                guard: {
                  type: 'pollFinished',
                  params: ({ context, event }) => ({ context, output: event.output }),
                },
                target: '#training.finished',
                actions: { type: 'applyPoll', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'runCancelled', params: ({ event }) => event.output.run },
                target: '#training.cancelled',
                actions: { type: 'applyPoll', params: ({ event }) => event.output },
              },
              {
                target: 'waiting',
                actions: { type: 'applyPoll', params: ({ event }) => event.output },
              },
            ],
            onError: [
              {
                guard: {
                  type: 'isNotFound',
                  params: ({ event }: { event: ErrorActorEvent }) => event.error,
                },
                target: '#training.failed',
                actions: 'storeGone',
              },
              // Spec: log-poll failures are ignored; they are counted for the warning.
              {
                target: 'waiting',
                actions: {
                  type: 'countPollFailure',
                  params: ({ event }: { event: ErrorActorEvent }) => event.error,
                },
              },
            ],
          },
        },
        cancelling: {
          invoke: {
            src: 'cancelRun',
            input: ({ context }) => ({ runId: context.runId ?? '' }),
            onDone: {
              target: '#training.cancelled',
              actions: { type: 'applyRun', params: ({ event }) => event.output },
            },
            // e.g. the run ended just before: polling finds out how.
            onError: {
              target: 'polling',
              actions: {
                type: 'storeCancelError',
                params: ({ event }: { event: ErrorActorEvent }) => event.error,
              },
            },
          },
        },
      },
    },
    finished: {
      on: { 'training.start': { target: 'starting' } },
    },
    failed: {
      on: { 'training.start': { target: 'starting' } },
    },
    cancelled: {
      on: { 'training.start': { target: 'starting' } },
    },
  },
});

export type TrainingSnapshot = SnapshotFrom<typeof trainingMachine>;
export type TrainingStatus =
  'idle' | 'starting' | 'running' | 'cancelling' | 'finished' | 'failed' | 'cancelled';

/** The lifecycle step the panel shows ('resuming' reads as 'starting'). */
export const selectTrainingStatus = (s: TrainingSnapshot): TrainingStatus => {
  if (s.matches({ running: 'cancelling' })) return 'cancelling';
  if (s.matches('running')) return 'running';
  if (s.matches('starting') || s.matches('resuming') || s.matches('boot')) return 'starting';
  return s.value as 'idle' | 'finished' | 'failed' | 'cancelled';
};
/** A run is being started, watched or cancelled: 'Training...' and the button disabled. */
export const selectIsBusy = (s: TrainingSnapshot): boolean =>
  s.matches('starting') || s.matches('resuming') || s.matches('running');
/** Progress percentage, 0–100 with two decimals. */
export const selectPercent = (s: TrainingSnapshot) => s.context.percent;
/** The last log lines (up to 10). */
export const selectLogLines = (s: TrainingSnapshot) => s.context.lines;
/** Several polls failed in a row: the service is not answering (the run is kept). */
export const selectUnreachable = (s: TrainingSnapshot) =>
  s.matches('running') && s.context.pollFailures >= s.context.unreachableAfter;
export const selectLastError = (s: TrainingSnapshot) => s.context.lastError;
/** Why the run failed, with its exit code when it had one. */
export const selectFailure = (s: TrainingSnapshot) =>
  s.matches('failed')
    ? {
        message: s.context.failure ?? 'The run failed.',
        exitCode: s.context.run?.exit_code ?? null,
      }
    : null;
/** Where a finished run wrote its adapter (the service's output directory), once known. */
export const selectOutputDir = (s: TrainingSnapshot) =>
  s.matches('finished') ? (s.context.run?.output_dir ?? null) : null;
/** The run id worth keeping across a reload (a run still being watched). */
export const selectRunToResume = (s: TrainingSnapshot) =>
  s.matches('running') ? s.context.runId : null;
