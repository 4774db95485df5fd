import { fromCallback } from 'xstate';
import type { WorkerRequest, WorkerResponse } from '../shared/worker-protocol';
import type { AppEvent } from '../machines/appMachine';

/** The subset of `Worker` this actor uses, so tests can hand in a fake. */
export interface WorkerLike {
  postMessage(message: WorkerRequest): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
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
 */
export function createLlmWorkerActor(createWorker: () => WorkerLike, schedule?: Schedule) {
  return fromCallback<WorkerRequest>(({ sendBack, receive }) => {
    const worker = createWorker();
    const coalescer = createUpdateCoalescer(
      (message) => sendBack({ type: 'worker.message', message } satisfies AppEvent),
      schedule,
    );
    worker.onmessage = (event) => coalescer.push(event.data);
    worker.onerror = (event) => {
      // A script error inside the worker (e.g. it failed to start) is a load-phase error.
      coalescer.push({
        status: 'error',
        data: event.message || 'The model worker crashed.',
        phase: 'load',
      });
    };
    receive((request) => worker.postMessage(request));
    return () => worker.terminate();
  });
}
