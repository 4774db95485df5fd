import type { ActorRef, Snapshot } from 'xstate';
import type {
  CountResponse,
  FaultResponse,
  GenerationResponse,
  HeartbeatResponse,
  Purpose,
  LoadResponse,
  ReferenceResponse,
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

/**
 * What the model machine accepts from the worker: loading, the reference check after a load,
 * download plans, faults, heartbeats.
 */
export type ModelWorkerEvent = EventOf<
  LoadResponse | ReferenceResponse | FaultResponse | PlanResponse | StorageError | HeartbeatResponse
>;
/**
 * What the chat machine accepts from the worker: `loading` (a switch), `ready`, its generations,
 * its token counts, faults, heartbeats.
 */
export type ChatWorkerEvent = EventOf<
  Loading | Ready | GenerationResponse | CountResponse | FaultResponse | HeartbeatResponse
>;
/** What the stored-models machine hears: the cache listing, deletions, their errors. */
export type StoredModelsWorkerEvent = EventOf<Exclude<StorageResponse, PlanResponse>>;
/** What 'Format Input' hears (as the app's `dataset.output` emission): its generations only. */
export type DatasetOutput = GenerationResponse;
/**
 * What a running evaluation (Compare) hears: the loads it asked for with their reference checks,
 * its generations, faults, and the heartbeat (the liveness rule, src/shared/liveness.ts). While
 * one runs it owns the worker (src/machines/evaluationMachine.ts).
 */
export type EvaluationWorkerEvent = EventOf<
  LoadResponse | ReferenceResponse | GenerationResponse | FaultResponse | HeartbeatResponse
>;

/**
 * The purpose an evaluation's generations carry: its own, so its replies are routed by purpose
 * alone (a one-off prompt for the worker: no KV cache used or kept, a fresh conversation per
 * question).
 */
export const EVALUATION_PURPOSE = 'evaluation' satisfies Purpose;

/** An actor that accepts an evaluation's worker events (the evaluation actor, a root of its own). */
export type EvaluationPort = ActorRef<Snapshot<unknown>, EvaluationWorkerEvent>;

/**
 * `worker.${status}` paired with its own message: EventOf<M> by construction. TypeScript cannot
 * pair a template literal with a union member, so the overload states the pairing that the one
 * line of the implementation makes (checked by worker-events.test.ts for every status).
 */
function eventOf<M extends WorkerResponse>(message: M): EventOf<M>;
function eventOf(message: WorkerResponse): { type: string; message: WorkerResponse } {
  return { type: `worker.${message.status}`, message };
}

/** Where one worker response goes; each field typed for its owner, so a wrong route does not compile. */
export interface Routed {
  model?: ModelWorkerEvent;
  chat?: ChatWorkerEvent;
  dataset?: DatasetOutput;
  storedModels?: StoredModelsWorkerEvent | { type: 'storedModels.loaded'; id: string | null };
  evaluation?: EvaluationWorkerEvent;
}

/**
 * Routes a worker response while an evaluation owns the worker: its loads (the chat hears
 * `loading`, so it waits, but not `ready`: the app hands that over when the evaluation ends), its
 * generations (the one-off purpose), and faults; the chat's own replies and storage go as usual.
 */
function routeDuringEvaluation(message: WorkerResponse): Routed {
  switch (message.status) {
    case 'loading':
      return { evaluation: eventOf(message), chat: eventOf(message) };
    case 'initiate':
    case 'progress':
    case 'done':
      return { evaluation: eventOf(message) };
    case 'ready':
      return {
        evaluation: eventOf(message),
        storedModels: { type: 'storedModels.loaded', id: message.data?.id ?? null },
      };
    case 'reference':
      // The evaluation's load was checked; or a check of the chat's model was cut short by the
      // evaluation's load, which the model machine hears so that it stops waiting.
      return { evaluation: eventOf(message), model: eventOf(message) };
    case 'fault':
    case 'alive':
      return { ...routeWorkerResponse(message), evaluation: eventOf(message) };
    case 'error':
      if (message.phase === 'load') return { evaluation: eventOf(message) };
      return routeGeneration(message);
    default:
      return routeWorkerResponse(message);
  }
}

/**
 * Routes a worker response to its owners (the one place that decides ownership); `evaluating`:
 * an evaluation (Compare) owns the worker now.
 */
export function routeWorkerResponse(message: WorkerResponse, evaluating = false): Routed {
  if (evaluating) return routeDuringEvaluation(message);
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
    case 'reference':
    case 'plan':
      return { model: eventOf(message) };
    case 'storage-error':
      return message.op === 'plan'
        ? { model: eventOf(message) }
        : { storedModels: eventOf(message) };
    case 'stored':
    case 'deleted':
      return { storedModels: eventOf(message) };
    case 'alive':
      // The worker is busy and alive: whoever waits on it (a load, a reply) keeps waiting.
      return { model: eventOf(message), chat: eventOf(message) };
    case 'fault':
      // Everyone waiting on the worker stops; 'Format Input' hears it as a failed generation.
      return {
        model: eventOf(message),
        chat: eventOf(message),
        dataset: { status: 'error', data: message.data, phase: 'generate', purpose: 'dataset' },
      };
    case 'error':
      if (message.phase === 'load') return { model: eventOf(message) };
      return routeGeneration(message);
    case 'start':
    case 'update':
    case 'complete':
      return routeGeneration(message);
    case 'count':
      // Only the chat counts tokens (the usage line under its input).
      return { chat: eventOf(message) };
  }
}

/** A generation's reply goes to whoever asked, by its purpose alone. */
function routeGeneration(message: GenerationResponse): Routed {
  switch (message.purpose) {
    case 'dataset':
      return { dataset: message };
    case EVALUATION_PURPOSE:
      return { evaluation: eventOf(message) };
    default:
      return { chat: eventOf(message) };
  }
}

/**
 * The worker actor as seen by the machines that talk to it: an actor that accepts worker requests
 * as events, sent with XState's `sendTo`. Tests pass any actor (a recording callback actor, see
 * test-helpers.ts) instead of the real Web Worker.
 */
export type WorkerPort = ActorRef<Snapshot<unknown>, WorkerActorEvent>;
