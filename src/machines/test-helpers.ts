import type { WorkerActorEvent } from '../shared/worker-protocol';
import type { WorkerPort } from './worker-events';

/** A recording stand-in for the worker actor: what the machines posted, in order. */
export function fakeWorker(): WorkerPort & { posted: WorkerActorEvent[] } {
  const posted: WorkerActorEvent[] = [];
  return { posted, send: (request) => void posted.push(request) };
}
