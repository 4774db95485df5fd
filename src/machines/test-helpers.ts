import { createActor, fromCallback, type EventObject } from 'xstate';
import type { WorkerActorEvent } from '../shared/worker-protocol';
import type { ContextWindow } from '../shared/context-window';
import { chatMachine } from './chatMachine';

/**
 * A started actor that records every event it is sent, in order: the stand-in for a port (the
 * worker, the chat, the store, the app) that machines reach with `sendTo`.
 */
export function recorder<E extends EventObject>(id?: string) {
  const posted: E[] = [];
  const actor = createActor(
    fromCallback<E>(({ receive }) => receive((event) => void posted.push(event))),
    { id },
  ).start();
  return Object.assign(actor, { posted });
}

/** A recording stand-in for the worker actor: what the machines posted, in order. */
export function fakeWorker() {
  return recorder<WorkerActorEvent>('llmWorker');
}

/** A started chat machine whose model is ready with `contextWindow`, and its fake worker. */
export function readyChat(contextWindow: ContextWindow, dtype = 'fp32') {
  const worker = fakeWorker();
  const chat = createActor(chatMachine, { input: { worker } }).start();
  chat.send({
    type: 'worker.ready',
    message: { status: 'ready', data: { id: 'm', dtype, contextWindow } },
  });
  return { chat, worker };
}
