import { fromCallback } from 'xstate';
import {
  faultMessage,
  type Purpose,
  type WorkerActorEvent,
  type WorkerRequest,
  type WorkerResponse,
} from '../shared/worker-protocol';
import type { AppEvent } from '../machines/appMachine';

/** The subset of `Worker` this actor uses, so tests can hand in a fake. */
export interface WorkerLike {
  postMessage(message: WorkerRequest): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  onmessageerror: ((event: MessageEvent) => void) | null;
}

type Schedule = (flush: () => void) => void;

const nextFrame: Schedule = (flush) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => flush());
  else setTimeout(flush, 16);
};

/**
 * Coalesces consecutive `update` messages into one per animation frame (text concatenated, the
 * latest tps / token count kept) so the machines and React see at most one update per frame.
 * Any other message flushes pending updates first, so order is preserved.
 */
export function createUpdateCoalescer(
  emit: (m: WorkerResponse) => void,
  schedule: Schedule = nextFrame,
) {
  let pending: Extract<WorkerResponse, { status: 'update' }> | null = null;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending) {
      const p = pending;
      pending = null;
      emit(p);
    }
  };
  return {
    push(message: WorkerResponse) {
      if (message.status !== 'update') {
        flush();
        emit(message);
        return;
      }
      if (pending && pending.channel === message.channel) {
        pending = { ...message, output: pending.output + message.output };
      } else {
        flush();
        pending = message;
      }
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    flush,
  };
}

/**
 * The Web Worker as an XState callback actor: the only code that touches `Worker` and
 * `postMessage`. Requests arrive as events; responses go back to the parent as
 * `worker.message` events.
 *
 * Faults: a Worker `error`/`messageerror`, a `fault` the worker posts (GPU device lost), or an
 * `abandon` request (a machine heard nothing for its stall delay) all end the current Worker; the
 * actor reports one `fault` and starts a fresh Worker, so the model can be loaded again without
 * reloading the page.
 */
export function createLlmWorkerActor(createWorker: () => WorkerLike, schedule?: Schedule) {
  return fromCallback<WorkerActorEvent>(({ sendBack, receive }) => {
    const coalescer = createUpdateCoalescer(
      (message) => sendBack({ type: 'worker.message', message } satisfies AppEvent),
      schedule,
    );
    // Every generation gets an id; a reply of an earlier generation of the same purpose (a late
    // tail after Stop, a refusal of a superseded request) is dropped.
    let lastId = 0;
    const current = new Map<Purpose, number>();
    const isStale = (message: WorkerResponse) =>
      'requestId' in message &&
      message.requestId !== undefined &&
      message.requestId !== current.get(message.purpose ?? 'chat');
    let worker: WorkerLike;
    const replace = () => {
      worker.onmessage = null;
      worker.onerror = null;
      worker.onmessageerror = null;
      worker.terminate();
      worker = start();
    };
    const fault = (message: Extract<WorkerResponse, { status: 'fault' }>) => {
      replace();
      coalescer.push(message);
    };
    const start = (): WorkerLike => {
      const w = createWorker();
      w.onmessage = (event) => {
        if (event.data.status === 'fault') fault(event.data);
        else if (!isStale(event.data)) coalescer.push(event.data);
      };
      w.onerror = (event) => {
        event.preventDefault?.();
        const detail = event.message || 'it raised an error';
        fault({ status: 'fault', kind: 'crashed', data: faultMessage('crashed', detail) });
      };
      w.onmessageerror = () =>
        fault({
          status: 'fault',
          kind: 'crashed',
          data: faultMessage('crashed', 'a message from it could not be read'),
        });
      return w;
    };
    worker = start();
    receive((request) => {
      if (request.type === 'abandon') {
        fault({
          status: 'fault',
          kind: 'unresponsive',
          data: faultMessage('unresponsive', request.data),
        });
      } else if (request.type === 'generate') {
        lastId += 1;
        current.set(request.purpose ?? 'chat', lastId);
        worker.postMessage({ ...request, requestId: lastId });
      } else {
        worker.postMessage(request);
      }
    });
    return () => worker.terminate();
  });
}
