import {
  assign,
  emit,
  enqueueActions,
  fromCallback,
  fromPromise,
  not,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { WorkerActorEvent, WorkerResponse } from '../shared/worker-protocol';
import type { ModelOption } from '../shared/models';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
import { chatMachine } from './chatMachine';
import { modelMachine } from './modelMachine';
import { conversationsMachine } from './conversationsMachine';
import { storedModelsMachine } from './storedModelsMachine';
import { watchChat } from './chat-watch';
import {
  routeWorkerResponse,
  type DatasetOutput,
  type EvaluationPort,
  type EvaluationWorkerEvent,
} from './worker-events';
import { errorMessage } from '../shared/errors';
import { DATASET_MAX_NEW_TOKENS, DEFAULT_MAX_NEW_TOKENS } from '../shared/generation-settings';

/** What the WebGPU probe reports. */
export interface GpuInfo {
  supported: boolean;
  shaderF16: boolean;
  /** Adapter description (vendor / architecture) when available. */
  adapter?: string | undefined;
  /** Why WebGPU is unavailable, when it is. */
  reason?: string | undefined;
}

export interface AppInput {
  models: readonly ModelOption[];
  /** Model host override (the e2e tests point it at a loopback server). */
  modelHost?: string | undefined;
  initialModel?: string | undefined;
  maxNewTokens?: number | undefined;
  /** Silence allowed while a reply is due (chatMachine's default otherwise). */
  replyStallMs?: number | undefined;
}

/**
 * Events: the llmWorker actor's responses, and 'Format Input' asking for a one-off generation on
 * the loaded model (its output is emitted as `dataset.output`, see `AppEmitted`).
 */
export type AppEvent =
  | { type: 'worker.message'; message: WorkerResponse }
  | { type: 'dataset.generate'; prompt: string; maxNewTokens?: number }
  | { type: 'dataset.cancel' }
  | StoreResult
  | EvaluationSessionEvent;

type ReadyEvent = Extract<EvaluationWorkerEvent, { type: 'worker.ready' }>;

/**
 * An evaluation (Compare, src/machines/evaluationMachine.ts) takes the worker while it runs:
 * `attach` routes the worker's load and evaluation events to it; `detach` gives the worker back,
 * naming the model it left loaded (its picker value and `ready` message), so the chat and the
 * model picker follow.
 */
export type EvaluationSessionEvent =
  | { type: 'evaluation.attach'; port: EvaluationPort }
  | { type: 'evaluation.detach'; loaded: { value: string; ready: ReadyEvent } | null };

/** Emitted for listeners outside the machine (`actor.on('dataset.output', ...)`). */
export type AppEmitted = { type: 'dataset.output'; message: DatasetOutput };

/**
 * The worker actor's logic placeholder: the composition root provides the real one
 * (src/actors/llm-worker-actor.ts); tests provide fakes. Its input is nothing; it receives
 * worker requests as events and sends `worker.message` events back.
 */
const llmWorkerPlaceholder = fromCallback<WorkerActorEvent>(() => {
  throw new Error('llmWorker actor not provided');
});

/**
 * The persistence actor (src/actors/conversation-store.ts), provided by the composition root.
 * Without it every command fails as 'unavailable' (the chat works, nothing is saved), so a test
 * that does not care about persistence need not provide one.
 */
const conversationStorePlaceholder = fromCallback<StoreCommand>(({ sendBack, receive }) => {
  receive((command) =>
    sendBack({
      type: 'store.failed',
      op: command.type,
      error: { kind: 'unavailable', message: 'Conversation storage is not connected.' },
    } satisfies StoreResult),
  );
});

const probeWebGPUPlaceholder = fromPromise<GpuInfo>(() => {
  throw new Error('probeWebGPU actor not provided');
});

type WorkerRef = ActorRefFrom<typeof llmWorkerPlaceholder>;

export interface AppContext {
  input: AppInput;
  gpu: GpuInfo | null;
  worker: WorkerRef | null;
  model: ActorRefFrom<typeof modelMachine> | null;
  chat: ActorRefFrom<typeof chatMachine> | null;
  conversations: ActorRefFrom<typeof conversationsMachine> | null;
  storedModels: ActorRefFrom<typeof storedModelsMachine> | null;
  /** The running evaluation, which owns the worker's events until it detaches. */
  evaluation: EvaluationPort | null;
}

export const appMachine = setup({
  types: {
    context: {} as AppContext,
    events: {} as AppEvent,
    input: {} as AppInput,
    emitted: {} as AppEmitted,
  },
  actors: {
    probeWebGPU: probeWebGPUPlaceholder,
    llmWorker: llmWorkerPlaceholder,
    conversationStore: conversationStorePlaceholder,
    model: modelMachine,
    chat: chatMachine,
    conversations: conversationsMachine.provide({ actors: { watchChat } }),
    storedModels: storedModelsMachine,
  },
  guards: {
    isSupported: (_, gpu: GpuInfo) => gpu.supported,
    isEvaluating: ({ context }) => context.evaluation !== null,
  },
  actions: {
    storeGpu: assign({ gpu: (_, gpu: GpuInfo) => gpu }),
    spawnSession: assign(({ context, spawn }) => {
      const worker = spawn('llmWorker', { id: 'llmWorker' });
      const model = spawn('model', {
        id: 'model',
        input: {
          worker,
          models: context.input.models,
          shaderF16: context.gpu?.shaderF16 ?? false,
          host: context.input.modelHost,
          initialSelection: context.input.initialModel ?? '',
        },
      });
      const chat = spawn('chat', {
        id: 'chat',
        input: {
          worker,
          maxNewTokens: context.input.maxNewTokens,
          replyStallMs: context.input.replyStallMs,
        },
      });
      const store = spawn('conversationStore', { id: 'conversationStore' });
      const conversations = spawn('conversations', {
        id: 'conversations',
        input: { chat, store, maxTokensCap: context.input.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS },
      });
      const storedModels = spawn('storedModels', { id: 'storedModels', input: { worker } });
      return { worker, model, chat, conversations, storedModels };
    }),
    routeWorkerMessage: enqueueActions(({ context, enqueue }, message: WorkerResponse) => {
      // Each child is sent only the events it owns, typed as such (see routeWorkerResponse).
      const routed = routeWorkerResponse(message, context.evaluation !== null);
      if (routed.model && context.model) enqueue.sendTo(context.model, routed.model);
      if (routed.chat && context.chat) enqueue.sendTo(context.chat, routed.chat);
      if (routed.storedModels && context.storedModels)
        enqueue.sendTo(context.storedModels, routed.storedModels);
      if (routed.dataset) enqueue.emit({ type: 'dataset.output', message: routed.dataset });
      // The evaluation is a root of its own (it attached itself), not a child.
      if (routed.evaluation && context.evaluation)
        enqueue.sendTo(context.evaluation, routed.evaluation);
    }),
    refuseDatasetGenerate: emit({
      type: 'dataset.output',
      message: {
        status: 'error',
        phase: 'generate',
        purpose: 'dataset',
        data: 'The local model is busy with Compare. Wait for it to finish or stop it, then try again.',
      },
    }),
    attachEvaluation: assign({ evaluation: (_, port: EvaluationPort) => port }),
    detachEvaluation: assign({ evaluation: null }),
    /**
     * After an evaluation: the chat hears the `ready` it was not given, and the picker selects
     * and loads the model the worker now holds (no load when the picker already has it loaded;
     * the worker reloads it otherwise, from the browser cache, so picker and worker agree).
     */
    handBackModel: enqueueActions(
      ({ context, enqueue }, loaded: { value: string; ready: ReadyEvent } | null) => {
        if (!loaded) return;
        if (context.chat) enqueue.sendTo(context.chat, loaded.ready);
        if (!context.model) return;
        enqueue.sendTo(context.model, { type: 'model.select', value: loaded.value });
        enqueue.sendTo(context.model, { type: 'model.load' });
        enqueue.sendTo(context.model, { type: 'model.retry' });
      },
    ),
    postDatasetGenerate: sendTo(
      ({ context }) => context.worker ?? '',
      (
        { context },
        request: { prompt: string; maxNewTokens?: number | undefined },
      ): WorkerActorEvent => ({
        type: 'generate',
        purpose: 'dataset',
        data: [{ role: 'user', content: request.prompt }],
        options: {
          maxNewTokens:
            request.maxNewTokens ?? context.input.maxNewTokens ?? DATASET_MAX_NEW_TOKENS,
        },
      }),
    ),
    routeStoreResult: sendTo(
      ({ context }) => context.conversations ?? '',
      (_, result: StoreResult) => result,
    ),
    postInterrupt: sendTo(({ context }) => context.worker ?? '', { type: 'interrupt' }),
    postCheck: sendTo(({ context }) => context.worker ?? '', { type: 'check' }),
  },
}).createMachine({
  id: 'app',
  context: ({ input }) => ({
    input,
    gpu: null,
    worker: null,
    model: null,
    chat: null,
    conversations: null,
    storedModels: null,
    evaluation: null,
  }),
  initial: 'checking',
  states: {
    /** The WebGPU gate. */
    checking: {
      invoke: {
        src: 'probeWebGPU',
        onDone: [
          {
            guard: { type: 'isSupported', params: ({ event }) => event.output },
            target: 'supported',
            actions: { type: 'storeGpu', params: ({ event }) => event.output },
          },
          {
            target: 'unsupported',
            actions: { type: 'storeGpu', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: 'unsupported',
          actions: {
            type: 'storeGpu',
            params: ({ event }) => ({
              supported: false,
              shaderF16: false,
              reason: errorMessage(event.error),
            }),
          },
        },
      },
    },
    unsupported: {},
    supported: {
      entry: ['spawnSession', 'postCheck'],
      on: {
        'worker.message': {
          actions: { type: 'routeWorkerMessage', params: ({ event }) => event.message },
        },
        'dataset.generate': [
          { guard: 'isEvaluating', actions: 'refuseDatasetGenerate' },
          {
            actions: {
              type: 'postDatasetGenerate',
              params: ({ event }) => ({ prompt: event.prompt, maxNewTokens: event.maxNewTokens }),
            },
          },
        ],
        'evaluation.attach': {
          actions: { type: 'attachEvaluation', params: ({ event }) => event.port },
        },
        'evaluation.detach': {
          actions: [
            'detachEvaluation',
            { type: 'handBackModel', params: ({ event }) => event.loaded },
          ],
        },
        // While an evaluation runs, the interrupt would stop its reply, not 'Format Input''s.
        'dataset.cancel': { guard: not('isEvaluating'), actions: 'postInterrupt' },
        // The persistence actor's replies go to the conversations machine.
        'store.*': { actions: { type: 'routeStoreResult', params: ({ event }) => event } },
      },
    },
  },
});

export type AppSnapshot = SnapshotFrom<typeof appMachine>;
export type AppActorRef = ActorRefFrom<typeof appMachine>;
