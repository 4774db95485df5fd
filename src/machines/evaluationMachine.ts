import {
  assign,
  enqueueActions,
  fromCallback,
  not,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { ModelLoadSpec } from '../shared/worker-protocol';
import { toGenerateOptions } from '../shared/generate-options';
import { LOAD_SILENCE_MS, REPLY_SILENCE_MS } from '../shared/liveness';
import type { GenerationSettings } from '../shared/generation-settings';
import {
  EVALUATION_VERSION,
  type EvalModelRef,
  type EvalQuestion,
  type EvalRow,
  type EvaluationRecord,
  type EvaluationStatus,
  type QuestionSource,
} from '../shared/evaluation';
import { EVALUATION_PURPOSE, type EvaluationWorkerEvent, type WorkerPort } from './worker-events';
import { CHECKING, type CheckStatus } from '../shared/reference-check';
import type { EvaluationSessionEvent } from './appMachine';
import {
  fileDone,
  fileInitiated,
  fileProgressed,
  loadReports,
  type ProgressItem,
} from './file-progress';

/** A model of the comparison: what the record names, and what the worker loads. */
export interface EvalModel extends EvalModelRef {
  spec: ModelLoadSpec;
}

/** What an evaluation needs: both models, the questions and the settings used for both. */
export interface EvaluationSetup {
  id: string;
  createdAt: number;
  a: EvalModel;
  b: EvalModel;
  questions: EvalQuestion[];
  settings: GenerationSettings;
  source: QuestionSource;
}

/** The app actor as the evaluation sees it: it takes the worker's events and gives them back. */
export type SessionPort = ActorRef<Snapshot<unknown>, EvaluationSessionEvent>;

export type Side = 'a' | 'b';

/** What the store actor (src/actors/evaluation-store.ts) is sent and answers. */
export type EvaluationStoreCommand = { type: 'save'; record: EvaluationRecord };
export type EvaluationStoreResult =
  | { type: 'evaluationStore.saved'; id: string }
  | { type: 'evaluationStore.failed'; message: string };

export interface EvaluationInput {
  worker: WorkerPort;
  session: SessionPort;
  /** Silence allowed while a reply is due (default REPLY_SILENCE_MS; the page's `?stallSeconds=`). */
  replySilenceMs?: number | undefined;
}

export type EvaluationEvent =
  | { type: 'evaluation.start'; setup: EvaluationSetup }
  | { type: 'evaluation.stop' }
  /** After a failure or a stop: carries on from the first question not answered. */
  | { type: 'evaluation.retry' }
  | EvaluationWorkerEvent
  | EvaluationStoreResult;

type ReadyEvent = Extract<EvaluationWorkerEvent, { type: 'worker.ready' }>;

export interface EvaluationContext {
  worker: WorkerPort;
  session: SessionPort;
  replySilenceMs: number;
  setup: EvaluationSetup | null;
  rows: EvalRow[];
  /** The model being loaded or answering. */
  side: Side;
  /** The question being answered (index into rows). */
  index: number;
  /** The answer being written. */
  partial: string;
  /** Decode tokens/s of the answer being written. */
  liveTps: number | null;
  /** Files of the load under way, and its status line. */
  files: ProgressItem[];
  statusText: string;
  /** Which model the worker holds for this evaluation (null: none, or unknown). */
  loaded: Side | null;
  /** Each model's "Checked on this GPU" (a model the trainer exported), as the chat shows it. */
  checks: Record<Side, CheckStatus>;
  /** The worker's `ready` for the model it holds, handed to the chat when the evaluation ends. */
  lastReady: ReadyEvent | null;
  /** Why the evaluation stopped short (failed); rows answered so far are kept. */
  error: string | null;
  /** Why the start was refused (no questions). */
  startError: string | null;
  /** Why the last save failed (the table stays), null after a save. */
  saveError: string | null;
  /** The model the chat was handed when the evaluation ended (its label), if any. */
  handedBack: string | null;
  /** Saves that succeeded (the saved list reads itself again when it changes). */
  saves: number;
}

/** Where to carry on: the first question A has not answered, else the first B has not. */
export function nextQuestion(rows: readonly EvalRow[]): { side: Side; index: number } | null {
  const a = rows.findIndex((r) => r.a === null);
  if (a >= 0) return { side: 'a', index: a };
  const b = rows.findIndex((r) => r.b === null);
  return b >= 0 ? { side: 'b', index: b } : null;
}

const modelOf = (context: EvaluationContext, side: Side) =>
  side === 'a' ? context.setup?.a : context.setup?.b;

/** The record saved and exported (see src/shared/evaluation.ts). */
export function toRecord(
  context: EvaluationContext,
  status: EvaluationStatus,
  now: number = Date.now(),
): EvaluationRecord | null {
  const setup = context.setup;
  if (!setup) return null;
  const ref = ({ value, label, id }: EvalModel): EvalModelRef => ({ value, label, id });
  return {
    version: EVALUATION_VERSION,
    id: setup.id,
    createdAt: setup.createdAt,
    updatedAt: now,
    status,
    error: status === 'failed' ? context.error : null,
    source: setup.source,
    settings: setup.settings,
    a: ref(setup.a),
    b: ref(setup.b),
    rows: context.rows,
  };
}

export const NO_QUESTIONS_MESSAGE =
  'The question set has no entries: add at least one question (one per line), or choose a run whose held-out set is not empty.';

const storePlaceholder = fromCallback<EvaluationStoreCommand>(({ sendBack, receive }) => {
  receive(() =>
    sendBack({
      type: 'evaluationStore.failed',
      message: 'Evaluation storage is not connected.',
    } satisfies EvaluationStoreResult),
  );
});

type WorkerMessageOf<T extends EvaluationWorkerEvent['type']> = Extract<
  EvaluationWorkerEvent,
  { type: T }
>['message'];
type StartEvent = Extract<EvaluationEvent, { type: 'evaluation.start' }>;
const setupOf = ({ event }: { event: StartEvent }) => event.setup;

/** `evaluation.start` where it is heard (idle and ended): refused without questions. */
const start = [
  { guard: { type: 'hasNoQuestions', params: setupOf }, actions: 'refuseStart' },
  { target: '#evaluation.running', actions: { type: 'begin', params: setupOf } },
] as const;

/** No word from the worker (not even its heartbeat) for the silence allowed: fail and replace it. */
const stalledLoading = {
  loadSilence: {
    target: '#evaluation.ended.failed',
    actions: [
      { type: 'storeStall', params: () => LOAD_SILENCE_MS },
      'forgetLoaded',
      'abandonWorker',
    ],
  },
} as const;
const stalledAnswering = {
  replySilence: {
    target: '#evaluation.ended.failed',
    actions: [
      {
        type: 'storeStall',
        params: ({ context }: { context: EvaluationContext }) => context.replySilenceMs,
      },
      'forgetLoaded',
      'abandonWorker',
    ],
  },
} as const;

export const evaluationMachine = setup({
  types: {
    context: {} as EvaluationContext,
    events: {} as EvaluationEvent,
    input: {} as EvaluationInput,
  },
  actors: { store: storePlaceholder },
  guards: {
    hasNoQuestions: (_, setup: EvaluationSetup) => setup.questions.length === 0,
    /** After this answer, the same model has another question. */
    hasNextQuestion: ({ context }) => context.index + 1 < context.rows.length,
    /** B is the model A just used, still in the worker: no second load. */
    bIsLoaded: ({ context }) =>
      context.loaded === 'a' && context.setup?.a.spec.id === context.setup?.b.spec.id,
    /** The model of the question to answer (context.side) is the one in the worker. */
    sideIsLoaded: ({ context }) => context.loaded === context.side,
    isSideB: ({ context }) => context.side === 'b',
    isFinished: ({ context }) => nextQuestion(context.rows) === null,
    /** The check is of the model this side loaded, which awaits one. */
    checksSide: ({ context }, message: WorkerMessageOf<'worker.reference'>) =>
      context.loaded === context.side &&
      context.checks[context.side] === CHECKING &&
      modelOf(context, context.side)?.spec.id === message.id,
  },
  actions: {
    refuseStart: assign({ startError: NO_QUESTIONS_MESSAGE }),
    begin: assign((_, setup: EvaluationSetup) => {
      return {
        setup,
        rows: setup.questions.map((q) => ({ ...q, a: null, b: null })),
        side: 'a' as const,
        index: 0,
        loaded: null,
        checks: { a: null, b: null },
        lastReady: null,
        error: null,
        startError: null,
        saveError: null,
        handedBack: null,
      };
    }),
    /** Positions on the first unanswered question (a retry or a continue). */
    resume: assign(({ context }) => {
      const next = nextQuestion(context.rows) ?? { side: context.side, index: context.index };
      return { ...next, error: null };
    }),
    attach: sendTo(
      ({ context }) => context.session,
      ({ self }) => ({ type: 'evaluation.attach' as const, port: self }),
    ),
    detach: sendTo(
      ({ context }) => context.session,
      ({ context }) => {
        const model = context.loaded ? modelOf(context, context.loaded) : undefined;
        return {
          type: 'evaluation.detach' as const,
          loaded:
            model && context.lastReady ? { value: model.value, ready: context.lastReady } : null,
        };
      },
    ),
    forgetLoaded: assign({ loaded: null, lastReady: null }),
    noteHandedBack: assign({
      handedBack: ({ context }) =>
        (context.loaded && context.lastReady && modelOf(context, context.loaded)?.label) || null,
    }),
    postLoad: enqueueActions(({ context, enqueue }) => {
      const model = modelOf(context, context.side);
      if (model) enqueue.sendTo(context.worker, { type: 'load', data: model.spec });
    }),
    startLoad: assign(() => ({
      loaded: null,
      lastReady: null,
      files: [],
      statusText: 'Loading model…',
    })),
    setStatus: assign({ statusText: (_, text: string) => text }),
    addFile: assign({
      files: ({ context }, message: WorkerMessageOf<'worker.initiate'>) =>
        fileInitiated(context.files, message),
    }),
    updateFile: assign({
      files: ({ context }, message: WorkerMessageOf<'worker.progress'>) =>
        fileProgressed(context.files, message),
    }),
    removeFile: assign({ files: ({ context }, file: string) => fileDone(context.files, file) }),
    markLoaded: assign(({ context }, ready: ReadyEvent) => ({
      loaded: context.side,
      lastReady: ready,
      files: [],
      statusText: '',
      checks: { ...context.checks, [context.side]: ready.message.data?.checking ? CHECKING : null },
    })),
    storeCheck: assign(({ context }, message: WorkerMessageOf<'worker.reference'>) => ({
      checks: { ...context.checks, [context.side]: message.check },
    })),
    toSideB: assign({ side: 'b' as const, index: 0 }),
    /** B is A's model, still loaded: A's check is B's. */
    shareCheck: assign(({ context }) => ({ checks: { ...context.checks, b: context.checks.a } })),
    nextIndex: assign({ index: ({ context }) => context.index + 1 }),
    postGenerate: enqueueActions(({ context, enqueue }) => {
      const row = context.rows[context.index];
      const settings = context.setup?.settings;
      if (!row || !settings) return;
      // The chat's mapping (Max new tokens was checked against the cap when Compare started).
      const options = toGenerateOptions(settings);
      // A fresh conversation per question: the question alone, no earlier turn, no KV cache.
      enqueue.sendTo(context.worker, {
        type: 'generate',
        purpose: EVALUATION_PURPOSE,
        data: [{ role: 'user', content: row.prompt }],
        options,
      });
    }),
    clearPartial: assign({ partial: '', liveTps: null }),
    appendText: assign(({ context }, update: WorkerMessageOf<'worker.update'>) =>
      // A reasoning model's thinking is not its answer.
      update.channel === 'answer'
        ? { partial: context.partial + update.output, liveTps: update.tps ?? null }
        : { liveTps: update.tps ?? null },
    ),
    storeAnswer: assign(({ context }, complete: WorkerMessageOf<'worker.complete'>) => {
      const { numTokens, seconds, finish } = complete;
      const answer = { text: context.partial, numTokens, seconds, truncated: finish === 'length' };
      return {
        rows: context.rows.map((row, i) =>
          i === context.index ? { ...row, [context.side]: answer } : row,
        ),
        partial: '',
      };
    }),
    postInterrupt: sendTo(({ context }) => context.worker, { type: 'interrupt' }),
    storeError: assign((_, error: string) => ({ error, files: [], partial: '' })),
    storeLoadError: assign(({ context }, error: string) => {
      const model = modelOf(context, context.side);
      return {
        error: `${model?.label ?? 'The model'} failed to load: ${error}`,
        files: [],
      };
    }),
    storeStall: assign((_, silenceMs: number) => ({
      error: `The model stopped responding: no word from it for ${silenceMs / 1000} seconds. Retry to load the model again.`,
      files: [],
      partial: '',
    })),
    /** A silent worker is replaced (the worker actor answers with a fault for everyone). */
    abandonWorker: sendTo(({ context }) => context.worker, {
      type: 'abandon',
      data: 'no reply to the comparison',
    }),
    save: enqueueActions(({ context, enqueue }, params: { status: EvaluationStatus }) => {
      const record = toRecord(context, params.status);
      if (record)
        enqueue.sendTo('store', { type: 'save', record } satisfies EvaluationStoreCommand);
    }),
    storeSaved: assign({ saveError: null, saves: ({ context }) => context.saves + 1 }),
    storeSaveError: assign({ saveError: (_, message: string) => message }),
  },
  delays: {
    /** The liveness rule (src/shared/liveness.ts): silence allowed while a reply is due… */
    replySilence: ({ context }) => context.replySilenceMs,
    /** …and while a model loads. */
    loadSilence: LOAD_SILENCE_MS,
  },
}).createMachine({
  id: 'evaluation',
  context: ({ input }) => ({
    worker: input.worker,
    session: input.session,
    replySilenceMs: input.replySilenceMs ?? REPLY_SILENCE_MS,
    setup: null,
    rows: [],
    side: 'a',
    index: 0,
    partial: '',
    liveTps: null,
    files: [],
    statusText: '',
    loaded: null,
    checks: { a: null, b: null },
    lastReady: null,
    error: null,
    startError: null,
    saveError: null,
    handedBack: null,
    saves: 0,
  }),
  invoke: { id: 'store', src: 'store' },
  on: {
    'evaluationStore.saved': { actions: 'storeSaved' },
    'evaluationStore.failed': {
      actions: { type: 'storeSaveError', params: ({ event }) => event.message },
    },
  },
  initial: 'idle',
  states: {
    idle: {
      on: { 'evaluation.start': start },
    },
    /**
     * The evaluation owns the worker: attached on entry; ended hands it back (on its entry, after
     * the transition's actions, so a fault first forgets the model). One loading and one
     * answering state serve both models: `context.side` says which (A first, then B).
     */
    running: {
      entry: 'attach',
      initial: 'resuming',
      on: {
        // The loaded model's reference check (it comes before the first answer, which waits).
        'worker.reference': {
          guard: { type: 'checksSide', params: ({ event }) => event.message },
          actions: { type: 'storeCheck', params: ({ event }) => event.message },
        },
        'worker.fault': {
          target: '#evaluation.ended.failed',
          actions: [
            { type: 'storeError', params: ({ event }) => event.message.data },
            'forgetLoaded',
          ],
        },
      },
      states: {
        /** The first unanswered question (context.side, context.index): its model loaded or not. */
        resuming: {
          always: [
            { guard: 'isFinished', target: '#evaluation.ended.done' },
            { guard: 'sideIsLoaded', target: 'answering' },
            { target: 'loading' },
          ],
        },
        loading: {
          entry: ['startLoad', 'postLoad'],
          initial: 'waiting',
          states: {
            waiting: {
              after: stalledLoading,
              on: {
                ...loadReports('waiting'),
                'worker.alive': { target: 'waiting', reenter: true },
              },
            },
          },
          on: {
            'worker.ready': {
              target: 'answering',
              actions: { type: 'markLoaded', params: ({ event }) => event },
            },
            'worker.error': {
              target: '#evaluation.ended.failed',
              actions: { type: 'storeLoadError', params: ({ event }) => event.message.data },
            },
            'evaluation.stop': 'stoppingLoad',
          },
        },
        answering: {
          entry: ['clearPartial', 'postGenerate'],
          initial: 'waiting',
          states: {
            waiting: {
              after: stalledAnswering,
              on: {
                'worker.alive': { target: 'waiting', reenter: true },
                'worker.start': { target: 'waiting', reenter: true },
                'worker.update': {
                  target: 'waiting',
                  reenter: true,
                  actions: { type: 'appendText', params: ({ event }) => event.message },
                },
              },
            },
          },
          on: {
            'worker.complete': [
              {
                guard: 'hasNextQuestion',
                target: 'answering',
                reenter: true,
                actions: [
                  { type: 'storeAnswer', params: ({ event }) => event.message },
                  { type: 'save', params: { status: 'running' } },
                  'nextIndex',
                ],
              },
              // B answered its last question.
              {
                guard: 'isSideB',
                target: '#evaluation.ended.done',
                actions: { type: 'storeAnswer', params: ({ event }) => event.message },
              },
              // A answered its last question: B next, loaded only when it is another model.
              {
                guard: 'bIsLoaded',
                target: 'answering',
                reenter: true,
                actions: [
                  { type: 'storeAnswer', params: ({ event }) => event.message },
                  { type: 'save', params: { status: 'running' } },
                  'toSideB',
                  'shareCheck',
                ],
              },
              {
                target: 'loading',
                actions: [
                  { type: 'storeAnswer', params: ({ event }) => event.message },
                  { type: 'save', params: { status: 'running' } },
                  'toSideB',
                ],
              },
            ],
            'worker.error': {
              target: '#evaluation.ended.failed',
              actions: { type: 'storeError', params: ({ event }) => event.message.data },
            },
            'evaluation.stop': { target: 'stoppingAnswer', actions: 'postInterrupt' },
          },
        },
        /** Stop while a model loads: a load cannot be cut short, so wait for its end. */
        stoppingLoad: {
          after: {
            loadSilence: {
              target: '#evaluation.ended.stopped',
              actions: ['forgetLoaded', 'abandonWorker'],
            },
          },
          on: {
            'worker.alive': { target: 'stoppingLoad', reenter: true },
            'worker.ready': {
              target: '#evaluation.ended.stopped',
              actions: { type: 'markLoaded', params: ({ event }) => event },
            },
            'worker.error': '#evaluation.ended.stopped',
          },
        },
        /** Stop while answering: the reply being written is dropped, the finished rows stay. */
        stoppingAnswer: {
          after: {
            replySilence: {
              target: '#evaluation.ended.stopped',
              actions: ['forgetLoaded', 'abandonWorker'],
            },
          },
          on: {
            'worker.alive': { target: 'stoppingAnswer', reenter: true },
            'worker.complete': { target: '#evaluation.ended.stopped', actions: 'clearPartial' },
            'worker.error': { target: '#evaluation.ended.stopped', actions: 'clearPartial' },
          },
        },
      },
    },
    /** Done, stopped or failed: the worker handed back, the record saved with how it ended. */
    ended: {
      entry: ['detach', 'noteHandedBack', 'forgetLoaded'],
      on: { 'evaluation.start': start },
      // Always entered through a child (#evaluation.ended.<how>); `initial` is required all the same.
      initial: 'done',
      states: {
        done: { entry: { type: 'save', params: { status: 'done' } } },
        stopped: {
          entry: { type: 'save', params: { status: 'stopped' } },
          on: {
            'evaluation.retry': {
              guard: not('isFinished'),
              target: '#evaluation.running',
              actions: 'resume',
            },
          },
        },
        failed: {
          entry: { type: 'save', params: { status: 'failed' } },
          on: { 'evaluation.retry': { target: '#evaluation.running', actions: 'resume' } },
        },
      },
    },
  },
});

export type EvaluationSnapshot = SnapshotFrom<typeof evaluationMachine>;
export type EvaluationActorRef = ActorRefFrom<typeof evaluationMachine>;
