/**
 * A fine-tuning run on the local training service:
 * attaching → idle → starting | resuming → running → finished | failed | cancelled.
 * `training.resume` asks the service to go on with a run that ended without its result (from its
 * newest checkpoint) and then watches it as it watches a run it started. The service, not the
 * page, owns the run: on start the machine asks `GET /runs` and attaches to the active run (one
 * started from another tab, browser or curl). While running, a `pollRun` actor is invoked every
 * `pollInterval` (2000 ms): log tail, run status and new loss points; the last `current/total`
 * gives the progress. The run is finished only when the service says `succeeded` (the trainer
 * exited 0 with its result saved); phase `saving` reads as 100 % "Saving…". Poll failures are
 * ignored (PRODUCT.md §4), but after `unreachableAfter` in a row the snapshot says the service is
 * unreachable; the run is kept. Selectors: trainingSelectors.ts. HTTP is provided at the edge.
 */
import { assign, emit, fromPromise, setup, type ErrorActorEvent, type SnapshotFrom } from 'xstate';
import {
  LOG_TAIL,
  type EvalPoint,
  type MetricPoint,
  type MetricsResponse,
  type RunInfo,
  type RunList,
  type TrainedModel,
  type TrainerInfo,
  type TrainRequest,
} from '../shared/training-api';
import { nextProgress } from '../shared/training-progress';
import { isApiError } from '../shared/api-error';
import { errorMessage } from '../shared/errors';

export interface StartTrainingInput {
  request: TrainRequest;
}
export interface StartTrainingOutput {
  runId: string;
}
export interface PollRunInput {
  runId: string;
  tail: number;
  /** Metric points after this `seq` (-1: all). */
  after: number;
  /** Held-out points after this `seq` (-1: all). */
  evalAfter: number;
}
export interface PollRunOutput {
  lines: string[];
  run: RunInfo;
  metrics: MetricsResponse;
}
/** What the service holds: its runs (GET /runs) and browser-ready models (GET /models). */
export interface Catalog {
  runs: RunList;
  models: TrainedModel[];
}
export interface CancelRunInput {
  runId: string;
}
export type ResumeRunInput = CancelRunInput;

export interface TrainingInput {
  /** Poll failures in a row before the service counts as unreachable (default 3). */
  unreachableAfter?: number;
}

export interface TrainingContext {
  /** What the last `training.start` asked for (the start actor's input). */
  request: TrainRequest | null;
  /** The run the last `training.resume` asked for (the resume actor's input). */
  resumeId: string | null;
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
  /** The loss curve so far (newest last). */
  points: MetricPoint[];
  /** The held-out loss so far (every point, as the service last sent them). */
  evalPoints: EvalPoint[];
  /** The `eval_after` cursor for the next metrics poll (held-out points). */
  evalAfter: number;
  /** The `after` cursor for the next metrics poll. */
  metricsAfter: number;
  /** The service's runs, newest first (the Runs list), as last fetched. */
  runs: RunInfo[];
  /** The service's browser-ready models (Load in chat, the model picker), as last fetched. */
  models: TrainedModel[];
  /** The service's trainer (interpreter, packages, device), as last fetched. */
  trainer: TrainerInfo | null;
}

/** Points kept in the page per run (the service thins beyond the same number). */
export const MAX_POINTS_IN_PAGE = 100_000;

export type TrainingEvent =
  | { type: 'training.start'; request: TrainRequest }
  | { type: 'training.cancel' }
  /** Go on with a run that failed, was cancelled or interrupted, from its newest checkpoint. */
  | { type: 'training.resume'; runId: string }
  /** The trainer's environment changed (its set-up ended): what it has now. */
  | { type: 'training.trainerChanged'; trainer: TrainerInfo };

/**
 * Emitted when POST /train or POST /runs/{id}/resume is refused: the UI shows `message` (the
 * server's text) in an alert.
 */
export type TrainingEmitted = { type: 'training.startFailed'; message: string };

/** The HTTP status of an actor's error: the training client throws `ApiError`s. */
function statusOf(error: unknown): number | undefined {
  return isApiError(error) ? error.status : undefined;
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
const fetchTrainerPlaceholder = fromPromise<TrainerInfo>(() => {
  throw new Error('fetchTrainer actor not provided');
});
const fetchCatalogPlaceholder = fromPromise<Catalog>(() => {
  throw new Error('fetchCatalog actor not provided');
});
const cancelRunPlaceholder = fromPromise<RunInfo, CancelRunInput>(() => {
  throw new Error('cancelRun actor not provided');
});
const resumeRunPlaceholder = fromPromise<RunInfo, ResumeRunInput>(() => {
  throw new Error('resumeRun actor not provided');
});

/** Never backwards; 100 once the last step is done (saving) or the run succeeded. */
function livePercent(previous: number, run: RunInfo): number {
  if (run.state === 'succeeded' || run.phase === 'saving') return 100;
  return Math.max(previous, run.progress);
}

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
    fetchCatalog: fetchCatalogPlaceholder,
    fetchTrainer: fetchTrainerPlaceholder,
    cancelRun: cancelRunPlaceholder,
    resumeRun: resumeRunPlaceholder,
  },
  delays: {
    /** The log is polled every 2000 ms. */
    pollInterval: 2000,
  },
  guards: {
    hasActiveRun: (_, catalog: Catalog) => catalog.runs.active !== null,
    runSucceeded: (_, run: RunInfo) => run.state === 'succeeded',
    runFailed: (_, run: RunInfo) => isFailedRun(run),
    runCancelled: (_, run: RunInfo) => run.state === 'cancelled',
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
      points: [],
      evalPoints: [],
      metricsAfter: -1,
      evalAfter: -1,
    }),
    attach: assign((_, { runs: list }: Catalog) => {
      const run = list.runs.find((r) => r.id === list.active) ?? null;
      return { runId: list.active, run, percent: run ? livePercent(0, run) : 0 };
    }),
    storeCatalog: assign((_, catalog: Catalog) => ({
      runs: catalog.runs.runs,
      models: catalog.models,
    })),
    storeTrainer: assign({ trainer: (_, trainer: TrainerInfo) => trainer }),
    storeRunId: assign({ runId: (_, runId: string) => runId }),
    storeRequest: assign({ request: (_, request: TrainRequest) => request }),
    storeResumeId: assign({ resumeId: (_, runId: string) => runId }),
    applyPoll: assign(({ context }, output: PollRunOutput) => {
      const fromLines = nextProgress(context.percent, output.lines).percent;
      const fresh = output.metrics.points.filter((p) => p.seq > context.metricsAfter);
      const freshEvals = (output.metrics.eval ?? []).filter((p) => p.seq > context.evalAfter);
      const points = fresh.length ? [...context.points, ...fresh] : context.points;
      return {
        percent: livePercent(fromLines, output.run),
        lines: output.lines,
        run: output.run,
        points: points.length > MAX_POINTS_IN_PAGE ? points.slice(-MAX_POINTS_IN_PAGE) : points,
        evalPoints: [...context.evalPoints, ...freshEvals].slice(-MAX_POINTS_IN_PAGE),
        evalAfter: freshEvals.at(-1)?.seq ?? context.evalAfter,
        metricsAfter: Math.max(context.metricsAfter, output.metrics.next),
        pollFailures: 0,
        lastError: null,
      };
    }),
    applyRun: assign(({ context }, run: RunInfo) => ({
      run,
      percent: livePercent(context.percent, run),
    })),
    countPollFailure: assign({
      pollFailures: ({ context }) => context.pollFailures + 1,
      lastError: (_, error: unknown) => errorMessage(error),
    }),
    storeFailure: assign({ failure: (_, run: RunInfo) => failureText(run) }),
    storeGone: assign({
      failure: ({ context }) =>
        `The training service no longer knows run ${context.runId ?? ''} (was it restarted with another data folder?).`,
    }),
    storeCancelError: assign({ lastError: (_, error: unknown) => errorMessage(error) }),
    emitStartFailed: emit((_, error: unknown) => ({
      type: 'training.startFailed' as const,
      message: errorMessage(error),
    })),
  },
}).createMachine({
  id: 'training',
  context: ({ input }) => ({
    request: null,
    resumeId: null,
    runId: null,
    percent: 0,
    lines: [],
    run: null,
    pollFailures: 0,
    unreachableAfter: input.unreachableAfter ?? 3,
    lastError: null,
    failure: null,
    points: [],
    evalPoints: [],
    metricsAfter: -1,
    evalAfter: -1,
    runs: [],
    models: [],
    trainer: null,
  }),
  // What the service's trainer has is read once, beside the catalog (a failure leaves it unknown).
  invoke: {
    src: 'fetchTrainer',
    onDone: { actions: { type: 'storeTrainer', params: ({ event }) => event.output } },
    // The service not answering (yet): the trainer stays unknown; the panel says so.
    onError: {},
  },
  on: {
    'training.trainerChanged': {
      actions: { type: 'storeTrainer', params: ({ event }) => event.trainer },
    },
  },
  initial: 'attaching',
  states: {
    /** The service owns the run: attach to whatever run is active there. */
    attaching: {
      invoke: {
        src: 'fetchCatalog',
        onDone: [
          {
            guard: { type: 'hasActiveRun', params: ({ event }) => event.output },
            target: 'running.polling',
            actions: [
              { type: 'storeCatalog', params: ({ event }) => event.output },
              { type: 'attach', params: ({ event }) => event.output },
            ],
          },
          {
            target: 'idle',
            actions: { type: 'storeCatalog', params: ({ event }) => event.output },
          },
        ],
        // Service not running (yet): nothing to attach to; Train Model says why if it still is.
        onError: { target: 'idle' },
      },
      // A click before the answer is not lost (a run already active makes the service refuse it).
      on: {
        'training.start': {
          target: 'starting',
          actions: { type: 'storeRequest', params: ({ event }) => event.request },
        },
      },
    },
    idle: {
      on: {
        'training.start': {
          target: 'starting',
          actions: { type: 'storeRequest', params: ({ event }) => event.request },
        },
        'training.resume': {
          target: 'resuming',
          actions: { type: 'storeResumeId', params: ({ event }) => event.runId },
        },
      },
    },
    starting: {
      entry: 'clearRun',
      invoke: {
        src: 'startTraining',
        input: ({ context }): StartTrainingInput => {
          // Every way in stores the request first (storeRequest).
          if (!context.request) throw new Error('No training request to start.');
          return { request: context.request };
        },
        onDone: {
          target: 'running',
          actions: { type: 'storeRunId', params: ({ event }) => event.output.runId },
        },
        // PRODUCT.md §4: a non-OK start shows the server's text in an alert and returns to idle.
        onError: {
          target: 'idle',
          actions: {
            type: 'emitStartFailed',
            params: ({ event }: { event: ErrorActorEvent }) => event.error,
          },
        },
      },
    },
    resuming: {
      entry: 'clearRun',
      invoke: {
        src: 'resumeRun',
        input: ({ context }): ResumeRunInput => {
          // Every way in stores the run id first (storeResumeId).
          if (!context.resumeId) throw new Error('No run to resume.');
          return { runId: context.resumeId };
        },
        onDone: {
          target: 'running',
          actions: [
            { type: 'storeRunId', params: ({ event }) => event.output.id },
            { type: 'applyRun', params: ({ event }) => event.output },
          ],
        },
        // Refused (no checkpoint, data changed, a run active): the service's text in an alert.
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
            input: ({ context }) => ({
              runId: context.runId ?? '',
              tail: LOG_TAIL,
              after: context.metricsAfter,
              evalAfter: context.evalAfter,
            }),
            onDone: [
              {
                guard: { type: 'runFailed', params: ({ event }) => event.output.run },
                target: '#training.ended.failed',
                actions: [
                  { type: 'applyPoll', params: ({ event }) => event.output },
                  { type: 'storeFailure', params: ({ event }) => event.output.run },
                ],
              },
              {
                guard: { type: 'runSucceeded', params: ({ event }) => event.output.run },
                target: '#training.ended.finished',
                actions: { type: 'applyPoll', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'runCancelled', params: ({ event }) => event.output.run },
                target: '#training.ended.cancelled',
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
                target: '#training.ended.failed',
                actions: 'storeGone',
              },
              // PRODUCT.md §4: log-poll failures are ignored; they are counted for the warning.
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
              target: '#training.ended.cancelled',
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
    /** The run ended: it joins the Runs list, and a browser-ready model the trained models. */
    ended: {
      invoke: {
        src: 'fetchCatalog',
        onDone: { actions: { type: 'storeCatalog', params: ({ event }) => event.output } },
        onError: {}, // the lists stay as they were
      },
      on: {
        'training.start': {
          target: 'starting',
          actions: { type: 'storeRequest', params: ({ event }) => event.request },
        },
        'training.resume': {
          target: 'resuming',
          actions: { type: 'storeResumeId', params: ({ event }) => event.runId },
        },
      },
      // Always entered through a child (#training.ended.<how>); `initial` is required all the same.
      initial: 'finished',
      states: { finished: {}, failed: {}, cancelled: {} },
    },
  },
});

export type TrainingSnapshot = SnapshotFrom<typeof trainingMachine>;
