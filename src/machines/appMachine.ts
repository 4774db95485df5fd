import {
  assign,
  emit,
  enqueueActions,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { WorkerRequest, WorkerResponse } from '../shared/worker-protocol';
import type { ModelOption } from '../shared/models';
import { chatMachine } from './chatMachine';
import { modelMachine } from './modelMachine';
import { toWorkerEvent } from './worker-events';

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
}

/**
 * Events: the llmWorker actor's responses, and 'Format Input' asking for a one-off generation on
 * the loaded model (its output is emitted as `dataset.output`, see `AppEmitted`).
 */
export type AppEvent =
  | { type: 'worker.message'; message: WorkerResponse }
  | { type: 'dataset.generate'; prompt: string; maxNewTokens?: number }
  | { type: 'dataset.cancel' };

/** Emitted for listeners outside the machine (`actor.on('dataset.output', ...)`). */
export type AppEmitted = { type: 'dataset.output'; message: WorkerResponse };

/**
 * The worker actor's logic placeholder: the composition root provides the real one
 * (src/actors/llm-worker-actor.ts); tests provide fakes. Its input is nothing; it receives
 * worker requests as events and sends `worker.message` events back.
 */
const llmWorkerPlaceholder = fromCallback<WorkerRequest>(() => {
  throw new Error('llmWorker actor not provided');
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
}

/** Which machine owns a worker message (routing happens here, in one place). */
export function ownerOf(message: WorkerResponse): Array<'model' | 'chat' | 'dataset'> {
  if ('purpose' in message && message.purpose === 'dataset') return ['dataset'];
  switch (message.status) {
    case 'loading':
    case 'initiate':
    case 'progress':
    case 'done':
      return ['model'];
    case 'ready':
      return ['model', 'chat'];
    case 'start':
    case 'update':
    case 'complete':
      return ['chat'];
    case 'error':
      return message.phase === 'generate' ? ['chat'] : ['model'];
  }
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
    model: modelMachine,
    chat: chatMachine,
  },
  guards: {
    isSupported: (_, gpu: GpuInfo) => gpu.supported,
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
        input: { worker, maxNewTokens: context.input.maxNewTokens },
      });
      return { worker, model, chat };
    }),
    routeWorkerMessage: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'worker.message') return;
      const workerEvent = toWorkerEvent(event.message);
      for (const owner of ownerOf(event.message)) {
        // Each child accepts exactly the worker events it owns (see ownerOf).
        if (owner === 'model') context.model?.send(workerEvent as never);
        else if (owner === 'chat') context.chat?.send(workerEvent as never);
        else enqueue(emit({ type: 'dataset.output', message: event.message }));
      }
    }),
    postDatasetGenerate: sendTo(
      ({ context }) => context.worker ?? '',
      ({ context, event }): WorkerRequest =>
        event.type === 'dataset.generate'
          ? {
              type: 'generate',
              purpose: 'dataset',
              data: [{ role: 'user', content: event.prompt }],
              options: { maxNewTokens: event.maxNewTokens ?? context.input.maxNewTokens ?? 2048 },
            }
          : { type: 'interrupt' },
    ),
    postInterrupt: sendTo(({ context }) => context.worker ?? '', { type: 'interrupt' }),
    postCheck: sendTo(({ context }) => context.worker ?? '', { type: 'check' }),
  },
}).createMachine({
  id: 'app',
  context: ({ input }) => ({ input, gpu: null, worker: null, model: null, chat: null }),
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
              reason: event.error instanceof Error ? event.error.message : String(event.error),
            }),
          },
        },
      },
    },
    unsupported: {},
    supported: {
      entry: ['spawnSession', 'postCheck'],
      on: {
        'worker.message': { actions: 'routeWorkerMessage' },
        'dataset.generate': { actions: 'postDatasetGenerate' },
        'dataset.cancel': { actions: 'postInterrupt' },
      },
    },
  },
});

export type AppSnapshot = SnapshotFrom<typeof appMachine>;
export type AppActorRef = ActorRefFrom<typeof appMachine>;
export const selectGate = (s: AppSnapshot): 'checking' | 'unsupported' | 'supported' => s.value;
export const selectModelRef = (s: AppSnapshot) => s.context.model;
export const selectChatRef = (s: AppSnapshot) => s.context.chat;
