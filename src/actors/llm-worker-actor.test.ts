import { describe, expect, it } from 'vitest';
import type { createMachine } from 'xstate';
import { createActor, sendTo, setup } from 'xstate';
import { createLlmWorkerActor, createUpdateCoalescer, type WorkerLike } from './llm-worker-actor';
import type { WorkerRequest, WorkerResponse } from '../shared/worker-protocol';

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

describe('createLlmWorkerActor', () => {
  it('posts requests to the worker, forwards responses to the parent and terminates on stop', () => {
    const posted: WorkerRequest[] = [];
    let terminated = false;
    const fake: WorkerLike = {
      postMessage: (m) => void posted.push(m),
      terminate: () => void (terminated = true),
      onmessage: null,
      onerror: null,
    };
    const received: unknown[] = [];
    const parent = setup({
      actors: {
        w: createLlmWorkerActor(
          () => fake,
          (f) => f(),
        ),
      },
    }).createMachine({
      invoke: { id: 'w', src: 'w' },
      on: {
        'worker.message': { actions: ({ event }) => void received.push(event) },
        go: { actions: sendTo('w', { type: 'check' }) },
      },
    });
    const actor = createActor(parent as ReturnType<typeof createMachine>).start();
    actor.send({ type: 'go' });
    expect(posted).toEqual([{ type: 'check' }]);
    fake.onmessage?.({ data: { status: 'ready' } } as MessageEvent<WorkerResponse>);
    fake.onerror?.({ message: 'script failed' } as ErrorEvent);
    expect(received).toEqual([
      { type: 'worker.message', message: { status: 'ready' } },
      {
        type: 'worker.message',
        message: { status: 'error', data: 'script failed', phase: 'load' },
      },
    ]);
    actor.stop();
    expect(terminated).toBe(true);
  });
});
