import type {
  FaultResponse,
  GenerationResponse,
  LoadResponse,
  WorkerActorEvent,
  WorkerResponse,
} from '../shared/worker-protocol';
import type { StorageResponse } from '../shared/storage-protocol';

/**
 * Worker responses as XState events: `{ status: 'progress', ... }` becomes
 * `{ type: 'worker.progress', message: { status: 'progress', ... } }` (distributes over unions).
 */
export type EventOf<M extends WorkerResponse> = M extends unknown
  ? { type: `worker.${M['status']}`; message: M }
  : never;

type Ready = Extract<LoadResponse, { status: 'ready' }>;
type Loading = Extract<LoadResponse, { status: 'loading' }>;
type PlanResponse = Extract<StorageResponse, { status: 'plan' }>;
type StorageError = Extract<StorageResponse, { status: 'storage-error' }>;

/** What the model machine accepts from the worker: loading, download plans, and faults. */
export type ModelWorkerEvent = EventOf<LoadResponse | FaultResponse | PlanResponse | StorageError>;
/** What the chat machine accepts from the worker: `loading` (a switch), `ready`, its generations, and faults. */
export type ChatWorkerEvent = EventOf<Loading | Ready | GenerationResponse | FaultResponse>;
/** What the stored-models machine hears: the cache listing, deletions, their errors. */
export type StoredModelsWorkerEvent = EventOf<Exclude<StorageResponse, PlanResponse>>;
/** What 'Format Input' hears (as the app's `dataset.output` emission): its generations only. */
export type DatasetOutput = GenerationResponse;

function eventOf<M extends WorkerResponse>(message: M): EventOf<M> {
  // `worker.${status}` paired with its own message is EventOf<M> by construction.
  return { type: `worker.${message.status}`, message } as EventOf<M>;
}

/** Where one worker response goes; each field typed for its owner, so a wrong route does not compile. */
export interface Routed {
  model?: ModelWorkerEvent;
  chat?: ChatWorkerEvent;
  dataset?: DatasetOutput;
  storedModels?: StoredModelsWorkerEvent | { type: 'storedModels.loaded'; id: string | null };
}

/** Routes a worker response to its owners (the one place that decides ownership). */
export function routeWorkerResponse(message: WorkerResponse): Routed {
  switch (message.status) {
    case 'loading':
      // The chat waits while another model loads (a switch).
      return { model: eventOf(message), chat: eventOf(message) };
    case 'initiate':
    case 'progress':
    case 'done':
      return { model: eventOf(message) };
    case 'ready':
      return {
        model: eventOf(message),
        chat: eventOf(message),
        storedModels: { type: 'storedModels.loaded', id: message.data?.id ?? null },
      };
    case 'plan':
      return { model: eventOf(message) };
    case 'storage-error':
      return message.op === 'plan'
        ? { model: eventOf(message) }
        : { storedModels: eventOf(message) };
    case 'stored':
    case 'deleted':
      return { storedModels: eventOf(message) };
    case 'fault':
      // Everyone waiting on the worker stops; 'Format Input' hears it as a failed generation.
      return {
        model: eventOf(message),
        chat: eventOf(message),
        dataset: { status: 'error', data: message.data, phase: 'generate', purpose: 'dataset' },
      };
    case 'error':
      if (message.phase === 'load') return { model: eventOf(message) };
      return message.purpose === 'dataset' ? { dataset: message } : { chat: eventOf(message) };
    case 'start':
    case 'update':
    case 'complete':
      return message.purpose === 'dataset' ? { dataset: message } : { chat: eventOf(message) };
  }
}

/**
 * The minimal shape of the worker actor as seen by the model and chat machines:
 * something that accepts worker requests (and `restart`) as events. Kept structural so tests can
 * pass any actor (or a recording fake) without the real Web Worker.
 */
export interface WorkerPort {
  send(request: WorkerActorEvent): void;
}
