import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { chatMachine } from '../machines/chatMachine';
import { fakeWorker } from '../machines/test-helpers';
import { getRoots, hasListeners, inspect, register, subscribe } from './bus';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

function chat(options: { inspect?: typeof inspect } = {}): AnyActorRef {
  const actor = createActor(chatMachine, { input: { worker: fakeWorker() }, ...options });
  cleanup.push(() => actor.stop());
  return actor.start();
}

describe('inspection bus', () => {
  it('with nobody subscribed: remembers the root, buffers nothing; a later subscriber sees only new events', () => {
    const actor = chat({ inspect });
    actor.send({ type: 'chat.input', text: 'before' });
    expect(hasListeners()).toBe(false);
    expect(getRoots()).toContain(actor);

    const seen: InspectionEvent[] = [];
    cleanup.push(subscribe((e) => seen.push(e)));
    actor.send({ type: 'chat.input', text: 'after' });
    const events = seen.filter((e) => e.type === '@xstate.event');
    expect(events.map((e) => (e.type === '@xstate.event' ? e.event : null))).toEqual([
      { type: 'chat.input', text: 'after' },
    ]);
  });

  it('leaves out roots never started (StrictMode builds the Provider actor twice)', () => {
    const idle = createActor(chatMachine, { input: { worker: fakeWorker() }, inspect });
    expect(getRoots()).not.toContain(idle);
    idle.start();
    cleanup.push(() => idle.stop());
    expect(getRoots()).toContain(idle);
  });

  it('forgets stopped roots', () => {
    const actor = chat({ inspect });
    actor.stop();
    chat({ inspect });
    expect(getRoots()).not.toContain(actor);
  });

  it('register(): attaches to the system only while someone listens', () => {
    const actor = chat();
    const attach = vi.spyOn(actor.system, 'inspect');
    cleanup.push(register(actor));
    expect(attach).not.toHaveBeenCalled();
    expect(getRoots()).toContain(actor);

    const seen: string[] = [];
    const unsubscribe = subscribe((e) => {
      if (e.type === '@xstate.event') seen.push(e.event.type);
    });
    expect(attach).toHaveBeenCalledTimes(1);
    actor.send({ type: 'worker.ready' });
    unsubscribe();
    actor.send({ type: 'chat.input', text: 'unseen' });
    expect(seen).toEqual(['worker.ready']);

    // Detached: a new subscriber attaches again and sees only what follows.
    const again: string[] = [];
    cleanup.push(subscribe((e) => e.type === '@xstate.event' && again.push(e.event.type)));
    expect(attach).toHaveBeenCalledTimes(2);
    actor.send({ type: 'chat.send', text: 'hi' });
    expect(again).toEqual(['chat.send', 'generate']); // the chat's sendTo to the worker
  });
});
