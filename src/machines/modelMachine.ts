import { assign, enqueueActions, sendTo, setup, type SnapshotFrom } from 'xstate';
import type { ModelLoadSpec } from '../shared/worker-protocol';
import type { ModelOption } from '../shared/models';
import { loadSpecOf } from '../shared/load-spec';
import { LOAD_SILENCE_MS } from '../shared/liveness';
import { isModelId } from '../shared/model-id';
import type { ModelWorkerEvent, WorkerPort } from './worker-events';
import type { DownloadPlan } from '../shared/storage';
import type { ReferenceCheck } from '../shared/reference-check';
import {
  fileDone,
  fileInitiated,
  fileProgressed,
  loadReports,
  type ProgressItem,
} from './file-progress';

export interface ModelContext {
  worker: WorkerPort;
  models: readonly ModelOption[];
  /** Selected dropdown value; '' means no selection. */
  selected: string;
  shaderF16: boolean;
  host?: string | undefined;
  statusText: string;
  files: ProgressItem[];
  error: string | null;
  loaded: { id: string; dtype: string } | null;
  /** The loaded model's reference check ("Checked on this GPU"), once the worker reported it. */
  check: ReferenceCheck | null;
  /** Download size and fit warnings of the selected model (asked on selection). */
  plan: DownloadPlan | null;
  /** Download size (bytes) of each model's variant that would load, from the plans seen. */
  sizes: Record<string, number>;
}

export interface ModelInput {
  worker: WorkerPort;
  models: readonly ModelOption[];
  shaderF16: boolean;
  host?: string | undefined;
  initialSelection?: string;
}

export type ModelEvent =
  | { type: 'model.select'; value: string }
  /** A hub model offered "Load in chat": added to the list (q4f16, q4 fallback) and selected. */
  | {
      type: 'model.add';
      id: string;
      /** A complete entry (a trained model served by its training service, with its host). */
      option?: ModelOption;
      /** false: only list it in the picker (default: select it too). */
      select?: boolean;
    }
  | { type: 'model.load' }
  /** Load the checked model again as the other variant its check advised ("Load q4 instead"). */
  | { type: 'model.loadAlternative'; dtype: string }
  | { type: 'model.retry' }
  /** After a fault (GPU lost, worker crashed or silent): load the same model in a fresh worker. */
  | { type: 'model.reload' }
  | ModelWorkerEvent;

/** Blank or whitespace-only = no selection. */
export function normaliseSelection(value: string): string {
  return value.trim();
}

export function toLoadSpec(context: ModelContext): ModelLoadSpec | null {
  const option = context.models.find((m) => m.value === context.selected);
  return option ? loadSpecOf(option, context) : null;
}

/** The variant that would load: the f16-free fallback when the GPU lacks `shader-f16`. */
export function variantOf(context: ModelContext): { id: string; dtype: string } | null {
  const option = context.models.find((m) => m.value === context.selected);
  if (!option) return null;
  return !context.shaderF16 && option.dtype.includes('f16') && option.fallback
    ? option.fallback
    : { id: option.id, dtype: option.dtype };
}

/** Whether the selected model is the one already loaded. */
export function isSelectedLoaded(context: ModelContext): boolean {
  const variant = variantOf(context);
  return variant !== null && context.loaded?.id === variant.id;
}

type ModelEventOf<T extends ModelEvent['type']> = Extract<ModelEvent, { type: T }>;
type ModelAdd = ModelEventOf<'model.add'>;
type ReadyData = ModelEventOf<'worker.ready'>['message']['data'];
type ReferenceMessage = ModelEventOf<'worker.reference'>['message'];

export const modelMachine = setup({
  types: {
    context: {} as ModelContext,
    events: {} as ModelEvent,
    input: {} as ModelInput,
  },
  guards: {
    isRepoId: (_, add: ModelAdd) => isModelId(add.id.trim(), { requireOwner: true }),
    hasSelection: ({ context }) => toLoadSpec(context) !== null,
    /** A model.add that only lists an entry (trained models found on the training service). */
    listsOnly: (_, add: ModelAdd) => add.select === false && add.option !== undefined,
    selectsAnotherModel: ({ context }, value: string) =>
      normaliseSelection(value) !== context.selected,
    /** A switch: another model than the loaded one is selected. */
    canSwitch: ({ context }) => toLoadSpec(context) !== null && !isSelectedLoaded(context),
    /** The worker replays the trainer's reference next (a trained model). */
    announcesCheck: (_, data: ReadyData) => data?.checking === true,
    /** The check is of the model loaded here (not of a model an evaluation loaded since). */
    checksLoaded: ({ context }, message: ReferenceMessage) =>
      context.loaded?.id === message.id && context.loaded.dtype === message.dtype,
  },
  actions: {
    addAndSelect: assign(({ context }, event: ModelAdd) => {
      const id = event.id.trim();

      if (event.option) {
        const others = context.models.filter((m) => m.value !== event.option?.value);
        const models = [...others, event.option];
        // Only listing it: the selection and any load error stay as they are.
        return event.select === false ? { models } : { models, selected: id, error: null };
      }
      const known = context.models.find((m) => m.id === id || m.value === id);
      if (known) return { selected: known.value, error: null };
      const option: ModelOption = {
        value: id,
        label: `${id} (from the hub)`,
        id,
        dtype: 'q4f16',
        fallback: { id, dtype: 'q4' },
      };
      return { models: [...context.models, option], selected: id, error: null };
    }),
    select: assign({ selected: (_, value: string) => normaliseSelection(value) }),
    // The selected entry becomes that variant, with no fallback.
    chooseVariant: assign({
      models: ({ context }, dtype: string) =>
        context.models.map((m) =>
          m.value === context.selected ? { ...m, dtype, fallback: undefined } : m,
        ),
    }),
    postPlan: enqueueActions(({ context, enqueue }) => {
      const variant = variantOf(context);
      // The entry's own host (a trained model's is the training service), as its load uses: the
      // picker's host would send a local model's name to the Hub.
      const host = toLoadSpec(context)?.host;
      if (variant && !isSelectedLoaded(context))
        enqueue.sendTo(context.worker, { type: 'plan', data: { ...variant, host } });
    }),
    clearPlan: assign({ plan: null }),
    storePlan: assign(({ context }, plan: ModelEventOf<'worker.plan'>['message']['plan']) => {
      const variant = variantOf(context);
      // An answer for an earlier selection is dropped.
      if (plan.id !== variant?.id || plan.dtype !== variant.dtype) return {};
      const sizes = plan.missing?.length
        ? context.sizes
        : { ...context.sizes, [context.selected]: plan.totalBytes };
      return { plan, sizes };
    }),
    postLoad: enqueueActions(({ context, enqueue }) => {
      const spec = toLoadSpec(context);
      if (spec) enqueue.sendTo(context.worker, { type: 'load', data: spec });
    }),
    startLoading: assign({ files: [], error: null, statusText: 'Loading model...' }),
    setStatus: assign({ statusText: (_, text: string) => text }),
    addFile: assign({
      files: ({ context }, message: ModelEventOf<'worker.initiate'>['message']) =>
        fileInitiated(context.files, message),
    }),
    updateFile: assign({
      files: ({ context }, message: ModelEventOf<'worker.progress'>['message']) =>
        fileProgressed(context.files, message),
    }),
    removeFile: assign({ files: ({ context }, file: string) => fileDone(context.files, file) }),
    storeStall: assign({
      error: 'The model worker stopped responding while loading (no progress for two minutes).',
      files: [],
    }),
    storeError: assign({
      error: (_, error: string) => error,
      files: [],
    }),
    /** Ask the worker actor to drop a silent worker; it answers with a `fault` (→ lost). */
    abandonWorker: sendTo(({ context }) => context.worker, {
      type: 'abandon',
      data: 'it went silent while loading',
    }),
    clearError: assign({ error: null }),
    markReady: assign({
      files: [],
      check: null,
      loaded: ({ context }, spec: ReadyData) => spec ?? toLoadSpec(context),
    }),
    storeCheck: assign({ check: (_, check: ReferenceCheck) => check }),
  },
  delays: {
    /** No worker event for this long while loading = a hang, shown as an error. */
    loadStall: 120_000,
    /**
     * No message at all (not even the heartbeat, every 2 s while the worker loads) for this long
     * = the worker is gone. Longer than the chat's: creating an ONNX Runtime session runs
     * synchronously on the worker thread for seconds with a big model (see llm.worker.ts).
     */
    loadSilence: LOAD_SILENCE_MS,
  },
}).createMachine({
  id: 'model',
  context: ({ input }) => ({
    worker: input.worker,
    models: input.models,
    shaderF16: input.shaderF16,
    host: input.host,
    selected: normaliseSelection(input.initialSelection ?? ''),
    statusText: '',
    files: [],
    error: null,
    loaded: null,
    check: null,
    plan: null,
    sizes: {},
  }),
  initial: 'none',
  on: {
    // Load in chat from the Hub works in every state: the model is added and selected.
    // Trained models found on the training service are only listed (a load error stays in view).
    'model.add': [
      {
        guard: { type: 'listsOnly', params: ({ event }) => event },
        actions: { type: 'addAndSelect', params: ({ event }) => event },
      },
      {
        guard: { type: 'isRepoId', params: ({ event }) => event },
        actions: [{ type: 'addAndSelect', params: ({ event }) => event }, 'clearPlan', 'postPlan'],
      },
    ],
    'worker.plan': { actions: { type: 'storePlan', params: ({ event }) => event.message.plan } },
    // From any state: nothing the old worker was doing will finish.
    'worker.fault': {
      target: '.lost',
      actions: { type: 'storeError', params: ({ event }) => event.message.data },
    },
  },
  states: {
    none: {
      on: {
        'model.select': {
          actions: [
            { type: 'select', params: ({ event }) => event.value },
            'clearPlan',
            'postPlan',
          ],
        },
        // PRODUCT.md §2: "Load model does nothing with no model selected."
        'model.load': { guard: 'hasSelection', target: 'loading' },
        // The worker failed to start, or WebGPU failed inside it: show it before any load.
        'worker.error': {
          target: 'failed',
          actions: { type: 'storeError', params: ({ event }) => event.message.data },
        },
      },
    },
    loading: {
      entry: ['startLoading', 'postLoad'],
      initial: 'waiting',
      states: {
        // Every worker event re-enters `waiting` (only it), restarting the stall timer.
        waiting: {
          after: { loadStall: { target: '#model.failed', actions: 'storeStall' } },
          // The heartbeat re-enters only `alive`: it proves the worker lives, not that it progresses.
          initial: 'alive',
          states: {
            alive: {
              after: { loadSilence: { actions: 'abandonWorker' } },
              on: { 'worker.alive': { target: 'alive', reenter: true } },
            },
          },
          on: {
            ...loadReports('waiting'),
          },
        },
      },
      on: {
        'worker.ready': [
          {
            guard: { type: 'announcesCheck', params: ({ event }) => event.message.data },
            target: 'ready.checking',
            actions: { type: 'markReady', params: ({ event }) => event.message.data },
          },
          {
            target: 'ready',
            actions: { type: 'markReady', params: ({ event }) => event.message.data },
          },
        ],
        'worker.error': {
          target: 'failed',
          actions: { type: 'storeError', params: ({ event }) => event.message.data },
        },
      },
    },
    failed: {
      // PRODUCT.md §4: the error is stored and Load is disabled. Beyond it: choosing another
      // model, or retrying, recovers.
      on: {
        'model.select': {
          guard: { type: 'selectsAnotherModel', params: ({ event }) => event.value },
          target: 'none',
          actions: [
            { type: 'select', params: ({ event }) => event.value },
            'clearError',
            'clearPlan',
            'postPlan',
          ],
        },
        'model.retry': { guard: 'hasSelection', target: 'loading' },
        'model.add': [
          // Listing a trained model keeps the error in view.
          {
            guard: { type: 'listsOnly', params: ({ event }) => event },
            actions: { type: 'addAndSelect', params: ({ event }) => event },
          },
          {
            guard: { type: 'isRepoId', params: ({ event }) => event },
            target: 'none',
            actions: [
              { type: 'addAndSelect', params: ({ event }) => event },
              'clearError',
              'clearPlan',
              'postPlan',
            ],
          },
        ],
      },
    },
    /**
     * Loaded and usable. A model exported by the trainer is checked first, on this GPU (the
     * worker replays export.json's reference; a message meanwhile waits for it): `checking` →
     * `checked` (the outcome in `context.check`). Other models stay `unchecked`.
     */
    ready: {
      initial: 'unchecked',
      states: {
        unchecked: {},
        checking: {
          on: {
            'worker.reference': {
              guard: { type: 'checksLoaded', params: ({ event }) => event.message },
              target: 'checked',
              actions: { type: 'storeCheck', params: ({ event }) => event.message.check },
            },
          },
        },
        checked: {
          on: {
            // Offered only with the check's `alternative` (ReferenceCheckStatus).
            'model.loadAlternative': {
              target: '#model.loading',
              actions: { type: 'chooseVariant', params: ({ event }) => event.dtype },
            },
          },
        },
      },
      on: {
        // The picker stays usable: choosing and loading another model switches (the worker
        // disposes of the previous one first).
        'model.select': {
          actions: [
            { type: 'select', params: ({ event }) => event.value },
            'clearPlan',
            'postPlan',
          ],
        },
        'model.load': { guard: 'canSwitch', target: 'loading' },
      },
    },
    /**
     * The worker or its GPU is gone (the worker actor has already started a fresh Worker): the
     * message says what happened, and `model.reload` loads the same model again — no page reload.
     */
    lost: {
      on: {
        'model.reload': { guard: 'hasSelection', target: 'loading' },
        'model.select': {
          guard: { type: 'selectsAnotherModel', params: ({ event }) => event.value },
          target: 'none',
          actions: [
            { type: 'select', params: ({ event }) => event.value },
            'clearError',
            'clearPlan',
            'postPlan',
          ],
        },
      },
    },
  },
});

/** Snapshot helpers for the UI. */
export type ModelSnapshot = SnapshotFrom<typeof modelMachine>;
