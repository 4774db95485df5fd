import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { chatMachine } from '../machines/chatMachine';
import { fakeWorker } from '../machines/test-helpers';
import { inspect } from './bus';
import { createInspectorStore, type InspectorStore } from './store';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

function open(limit?: number): InspectorStore {
  const store = createInspectorStore({ limit, schedule: (flush) => flush() });
  cleanup.push(store.subscribe(() => {}));
  return store;
}

function chat(): AnyActorRef {
  const actor = createActor(chatMachine, { input: { worker: fakeWorker() }, inspect, id: 'chat' });
  cleanup.push(() => actor.stop());
  return actor.start();
}

const update = (i: number) => ({
  type: 'worker.update',
  message: { status: 'update', output: 'x', numTokens: i, channel: 'answer' },
});

describe('inspector store', () => {
  it('logs events in order with source → target and the resulting state', () => {
    const store = open();
    const actor = chat();
    actor.send({ type: 'worker.ready' });
    actor.send({ type: 'chat.send', text: 'Hello' });
    const rows = store.getLog().map((r) => [r.type, r.target, r.state, r.summary]);
    expect(rows).toEqual([
      ['xstate.init', 'chat', 'unavailable', 'input: {worker: @llmWorker}'],
      ['worker.ready', 'chat', 'idle', ''],
      ['chat.send', 'chat', { replying: 'generating' }, 'text: "Hello"'],
      // The chat's request to the worker, sent with sendTo, goes through the system: it is logged.
      [
        'generate',
        'llmWorker',
        undefined,
        'data: [1], options: {maxNewTokens: 1024, temperature: 0, topP: 1, repetitionPenalty: 1}',
      ],
    ]);
    expect(store.getTree().map((n) => n.id)).toContain('chat');
  });

  it('collapses a run of tokens into one row with a count, ended by any other event', () => {
    const store = open();
    const actor = chat();
    actor.send({ type: 'worker.ready' });
    actor.send({ type: 'chat.send', text: 'Hi' });
    for (let i = 1; i <= 1000; i += 1) actor.send(update(i));
    actor.send({ type: 'chat.stop' });
    for (let i = 1; i <= 5; i += 1) actor.send(update(i));
    expect(store.getLog().map((r) => `${r.type}×${r.count}`)).toEqual([
      'xstate.init×1',
      'worker.ready×1',
      'chat.send×1',
      'generate×1',
      'worker.update×1000',
      'chat.stop×1',
      'interrupt×1',
      'worker.update×5',
    ]);
    expect(store.getEventCount()).toBe(1011);
  });

  it('keeps the log bounded', () => {
    const store = open(50);
    const actor = chat();
    for (let i = 0; i < 500; i += 1) actor.send({ type: 'chat.reset' });
    expect(store.getLog().length).toBe(50);
    expect(store.getLog().at(-1)?.seq).toBe(500); // xstate.init was row 0
  });
});
