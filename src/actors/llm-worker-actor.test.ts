import { describe, expect, it } from 'vitest';
import { createActor, sendTo, setup } from 'xstate';
import { createLlmWorkerActor, createUpdateCoalescer, type WorkerLike } from './llm-worker-actor';
import type { WorkerActorEvent, WorkerRequest, WorkerResponse } from '../shared/worker-protocol';

const update = (output: string, numTokens: number): WorkerResponse => ({
  status: 'update',
  output,
  numTokens,
  tps: numTokens,
  channel: 'answer',
});

describe('createUpdateCoalescer', () => {
  it('merges updates within one frame and flushes before any other message', () => {
    const out: WorkerResponse[] = [];
    let frame: (() => void) | null = null;
    const c = createUpdateCoalescer(
      (m) => out.push(m),
      (f) => (frame = f),
    );
    c.push({ status: 'start' });
    c.push(update('a', 1));
    c.push(update('b', 2));
    c.push(update('c', 3));
    expect(out).toEqual([{ status: 'start' }]);
    (frame as unknown as () => void)();
    expect(out[1]).toEqual({
      status: 'update',
      output: 'abc',
      numTokens: 3,
      tps: 3,
      channel: 'answer',
    });
    c.push(update('d', 4));
    c.push({ status: 'complete', numTokens: 4, seconds: 1, interrupted: false });
    expect(out.slice(2)).toEqual([
      update('d', 4),
      { status: 'complete', numTokens: 4, seconds: 1, interrupted: false },
    ]);
  });

  it('does not merge text of different channels', () => {
    const out: WorkerResponse[] = [];
    const c = createUpdateCoalescer(
      (m) => out.push(m),
      () => {},
    );
    c.push({ ...update('think', 1), channel: 'thinking' } as WorkerResponse);
    c.push(update('answer', 2));
    c.flush();
    expect(out.map((m) => (m.status === 'update' ? m.channel : m.status))).toEqual([
      'thinking',
      'answer',
    ]);
  });
});

function fakeWorkers() {
  const made: Array<WorkerLike & { posted: WorkerRequest[]; terminated: boolean }> = [];
  const create = () => {
    const w = {
      posted: [] as WorkerRequest[],
      terminated: false,
      postMessage(m: WorkerRequest) {
        w.posted.push(m);
      },
      terminate() {
        w.terminated = true;
      },
      onmessage: null,
      onerror: null,
      onmessageerror: null,
    } as WorkerLike & { posted: WorkerRequest[]; terminated: boolean };
    made.push(w);
    return w;
  };
  return { made, create };
}

function host(create: () => WorkerLike) {
  const received: unknown[] = [];
  const parent = setup({
    types: { events: {} as { type: 'worker.message' } | { type: 'go'; e: WorkerActorEvent } },
    actors: { w: createLlmWorkerActor(create, (f) => f()) },
  }).createMachine({
    invoke: { id: 'w', src: 'w' },
    on: {
      'worker.message': { actions: ({ event }) => void received.push(event) },
      go: { actions: sendTo('w', ({ event }) => event.e) },
    },
  });
  return { actor: createActor(parent).start(), received };
}

describe('createLlmWorkerActor', () => {
  it('posts requests to the worker, forwards responses to the parent and terminates on stop', () => {
    const { made, create } = fakeWorkers();
    const { actor, received } = host(create);
    actor.send({ type: 'go', e: { type: 'check' } });
    expect(made[0]?.posted).toEqual([{ type: 'check' }]);
    made[0]?.onmessage?.({ data: { status: 'ready' } } as MessageEvent<WorkerResponse>);
    expect(received).toEqual([{ type: 'worker.message', message: { status: 'ready' } }]);
    actor.stop();
    expect(made[0]?.terminated).toBe(true);
  });

  // Replies were attributed by purpose alone: a late tail of an earlier reply joined the next one.
  it('every generation carries an id; a reply naming an earlier request of its purpose is dropped', () => {
    const { made, create } = fakeWorkers();
    const { actor, received } = host(create);
    const generate = (purpose: 'chat' | 'evaluation') =>
      actor.send({ type: 'go', e: { type: 'generate', data: [], purpose } });
    generate('chat');
    generate('evaluation');
    generate('chat');
    expect(made[0]?.posted.map((m) => (m.type === 'generate' ? m.requestId : null))).toEqual([
      1, 2, 3,
    ]);
    const reply = (requestId: number, purpose: 'chat' | 'evaluation', output: string) =>
      made[0]?.onmessage?.({
        data: { status: 'update', output, numTokens: 1, channel: 'answer', purpose, requestId },
      } as MessageEvent<WorkerResponse>);
    reply(1, 'chat', 'stale');
    reply(3, 'chat', 'current');
    reply(2, 'evaluation', 'compare');
    expect(received.map((e) => (e as { message: { output?: string } }).message.output)).toEqual([
      'current',
      'compare',
    ]);
  });

  it('a Worker error is a crash: one fault, and a fresh Worker takes the next request', () => {
    const { made, create } = fakeWorkers();
    const { actor, received } = host(create);
    made[0]?.onerror?.({ message: 'Uncaught RangeError: out of memory' } as ErrorEvent);
    expect(received).toEqual([
      {
        type: 'worker.message',
        message: {
          status: 'fault',
          kind: 'crashed',
          data: 'The model worker crashed: Uncaught RangeError: out of memory. Load the model again.',
        },
      },
    ]);
    expect(made).toHaveLength(2);
    expect(made[0]?.terminated).toBe(true);
    actor.send({ type: 'go', e: { type: 'check' } });
    expect(made[0]?.posted).toEqual([]);
    expect(made[1]?.posted).toEqual([{ type: 'check' }]);
  });

  it('messageerror, a posted device-lost fault and abandon each replace the Worker', () => {
    const { made, create } = fakeWorkers();
    const { actor, received } = host(create);
    made[0]?.onmessageerror?.({} as MessageEvent);
    const lost = { status: 'fault', kind: 'device-lost', data: 'The GPU was lost.' } as const;
    made[1]?.onmessage?.({ data: lost } as MessageEvent<WorkerResponse>);
    actor.send({ type: 'go', e: { type: 'abandon', data: 'no reply for 60 seconds' } });
    expect(made).toHaveLength(4);
    expect(made.slice(0, 3).every((w) => w.terminated)).toBe(true);
    expect(received.map((e) => (e as { message: WorkerResponse }).message)).toEqual([
      {
        status: 'fault',
        kind: 'crashed',
        data: 'The model worker crashed: a message from it could not be read. Load the model again.',
      },
      lost,
      {
        status: 'fault',
        kind: 'unresponsive',
        data: 'The model stopped responding: no reply for 60 seconds. Load the model again.',
      },
    ]);
  });
});
