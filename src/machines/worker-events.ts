import type { WorkerRequest, WorkerResponse } from '../shared/worker-protocol';

/**
 * Worker responses as XState events: `{ status: 'progress', ... }` becomes
 * `{ type: 'worker.progress', message: { status: 'progress', ... } }`.
 */
export type WorkerEventOf<S extends WorkerResponse['status']> = {
  type: `worker.${S}`;
  message: Extract<WorkerResponse, { status: S }>;
};

export type WorkerEvent = {
  [S in WorkerResponse['status']]: WorkerEventOf<S>;
}[WorkerResponse['status']];

/** Turns a raw worker response into the event the machines understand. */
export function toWorkerEvent(message: WorkerResponse): WorkerEvent {
  return { type: `worker.${message.status}`, message } as WorkerEvent;
}

/**
 * The minimal shape of the worker actor as seen by the model and chat machines:
 * something that accepts worker requests as events. Kept structural so tests can pass
 * any actor (or a recording fake) without the real Web Worker.
 */
export interface WorkerPort {
  send(request: WorkerRequest): void;
}
