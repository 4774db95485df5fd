import { describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { REPLY_STALL_MS, chatMachine, selectIsGenerating, toWorkerMessages } from './chatMachine';
import { fakeWorker } from './test-helpers';

function ready() {
  const worker = fakeWorker();
  const actor = createActor(chatMachine, { input: { worker } }).start();
  actor.send({ type: 'worker.ready', message: { status: 'ready' } });
  return { actor, worker };
}

const update = (
  output: string,
  numTokens: number,
  tps?: number,
  channel: 'answer' | 'thinking' = 'answer',
) =>
  ({
    type: 'worker.update',
    message: { status: 'update', output, numTokens, tps, channel },
  }) as const;

describe('chatMachine', () => {
  it('unavailable → chat.send is ignored until the model is ready', () => {
    const worker = fakeWorker();
    const actor = createActor(chatMachine, { input: { worker } }).start();
    actor.send({ type: 'chat.send', text: 'hello' });
    expect(actor.getSnapshot().value).toBe('unavailable');
    expect(actor.getSnapshot().context.messages).toEqual([]);
    expect(worker.posted).toEqual([]);
  });

  it('idle → chat.send appends the user message, clears input and stats, posts all messages', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.input', text: '  first  ' });
    actor.send({ type: 'chat.send' });
    let s = actor.getSnapshot();
    expect(s.value).toBe('generating');
    expect(s.context.draft).toBe('');
    expect(s.context.messages).toEqual([{ role: 'user', content: 'first' }]);
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send(update('Hi', 1));
    actor.send(update(' there', 2, 12.5));
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 2, seconds: 0.5, interrupted: false },
    });
    s = actor.getSnapshot();
    expect(s.value).toBe('idle');
    expect(s.context).toMatchObject({ tps: 12.5, numTokens: 2, seconds: 0.5 });
    actor.send({ type: 'chat.send', text: 'second' });
    s = actor.getSnapshot();
    expect(s.context.tps).toBeNull();
    expect(s.context.seconds).toBeNull();
    expect(worker.posted.at(-1)).toEqual({
      type: 'generate',
      data: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: 'second' },
      ],
      options: { maxNewTokens: 1024 },
    });
  });

  it('chat.send with empty or whitespace text does nothing', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: '   ' });
    actor.send({ type: 'chat.send' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(worker.posted).toEqual([]);
  });

  it('generating → chat.send is ignored (no second generation)', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'chat.send', text: 'b' });
    expect(actor.getSnapshot().context.messages).toHaveLength(1);
    expect(worker.posted).toHaveLength(1);
  });

  it('worker.start appends an empty assistant message (awaiting reply)', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ role: 'assistant', content: '' });
  });

  it('reasoning goes to thinking, the answer to content', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send(update('hmm', 1, undefined, 'thinking'));
    actor.send(update('42', 2, 3, 'answer'));
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      role: 'assistant',
      thinking: 'hmm',
      content: '42',
    });
    expect(toWorkerMessages(actor.getSnapshot().context.messages)).toEqual([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: '42' },
    ]);
  });

  it('generating → chat.stop posts interrupt, marks the reply Stopped, drops the tail', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send(update('shown', 1));
    actor.send({ type: 'chat.stop' });
    expect(worker.posted.at(-1)).toEqual({ type: 'interrupt' });
    expect(selectIsGenerating(actor.getSnapshot())).toBe(true);
    const final = { role: 'assistant', content: 'shown', ended: { by: 'stop' } };
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual(final);
    // Regression: text kept arriving after Stop until the worker noticed the interrupt.
    actor.send(update(' tail', 2));
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual(final);
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 3, seconds: 1, interrupted: true },
    });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual(final);
  });

  it('a reply cut by the token limit is marked with the limit', () => {
    const worker = fakeWorker();
    const actor = createActor(chatMachine, { input: { worker, maxNewTokens: 2 } }).start();
    actor.send({ type: 'worker.ready', message: { status: 'ready' } });
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send(update('xy', 2));
    const stats = { promptTokens: 5, ttft: 0.1, numTokens: 2, seconds: 0.3, decodeTps: 5 };
    actor.send({
      type: 'worker.complete',
      message: {
        status: 'complete',
        numTokens: 2,
        seconds: 0.3,
        interrupted: false,
        stats,
        finish: 'length',
      },
    });
    const s = actor.getSnapshot();
    expect(s.context.messages.at(-1)?.ended).toEqual({ by: 'limit', limit: 2 });
    expect(s.context).toMatchObject({ stats, tps: 5, numTokens: 2, seconds: 0.3 });
  });

  it('silence while generating: after the stall delay the worker is abandoned', () => {
    vi.useFakeTimers();
    try {
      const { actor, worker } = ready();
      actor.send({ type: 'chat.send', text: 'a' });
      actor.send({ type: 'chat.input', text: 'next question' });
      vi.advanceTimersByTime(REPLY_STALL_MS - 1000);
      actor.send(update('x', 1)); // any message restarts the timer
      vi.advanceTimersByTime(REPLY_STALL_MS - 1000);
      expect(actor.getSnapshot().value).toBe('generating');
      vi.advanceTimersByTime(1000);
      expect(worker.posted.at(-1)).toEqual({
        type: 'abandon',
        data: `no reply for ${REPLY_STALL_MS / 1000} seconds`,
      });
      expect(actor.getSnapshot().value).toBe('unavailable');
      expect(actor.getSnapshot().context.draft).toBe('next question');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a fault ends the reply; ready again re-enables the chat with the draft kept', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'chat.input', text: 'draft' });
    actor.send({
      type: 'worker.fault',
      message: { status: 'fault', kind: 'device-lost', data: 'The GPU was lost.' },
    });
    expect(actor.getSnapshot().value).toBe('unavailable');
    actor.send({ type: 'worker.ready', message: { status: 'ready' } });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.draft).toBe('draft');
  });

  it('idle → chat.reset posts reset and clears messages', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 1, interrupted: false },
    });
    actor.send({ type: 'chat.reset' });
    expect(worker.posted.at(-1)).toEqual({ type: 'reset' });
    expect(actor.getSnapshot().context.messages).toEqual([]);
    expect(actor.getSnapshot().context.numTokens).toBeNull();
  });

  it('generating → chat.reset interrupts, resets, clears, and ignores the tail until complete', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send({ type: 'chat.reset' });
    expect(worker.posted.slice(-2)).toEqual([{ type: 'interrupt' }, { type: 'reset' }]);
    expect(actor.getSnapshot().value).toBe('resetting');
    actor.send(update('late', 5));
    expect(actor.getSnapshot().context.messages).toEqual([]);
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 5, seconds: 1, interrupted: true },
    });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.numTokens).toBeNull();
  });

  it('generating → worker.error (generate) → idle with the error logged and kept', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'a' });
    actor.send({
      type: 'worker.error',
      message: { status: 'error', data: 'device lost', phase: 'generate' },
    });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.error).toBe('device lost');
    expect(spy).toHaveBeenCalledWith('device lost');
    spy.mockRestore();
  });

  it('roles other than assistant are sent as user', () => {
    expect(toWorkerMessages([{ role: 'system' as 'user', content: 'x' }])).toEqual([
      { role: 'user', content: 'x' },
    ]);
  });
});
