import { describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { REPLY_STALL_MS, chatMachine, toWorkerMessages } from './chatMachine';
import { selectIsGenerating } from './chatSelectors';
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
    expect(s.value).toEqual({ replying: 'generating' });
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
      // Default settings: greedy (temperature 0), 1,024 tokens, no system prompt.
      options: {
        maxNewTokens: 1024,
        temperature: 0,
        topP: 1,
        repetitionPenalty: 1,
        systemPrompt: undefined,
      },
    });
  });

  it('chat.settings → the next generate carries them; Max new tokens is capped by ?maxTokens=', () => {
    const worker = fakeWorker();
    const actor = createActor(chatMachine, { input: { worker, maxNewTokens: 48 } }).start();
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'm', dtype: 'fp32' } },
    });
    actor.send({
      type: 'chat.settings',
      patch: { temperature: 1.2, topP: 0.9, maxNewTokens: 5000, systemPrompt: 'Be brief.' },
    });
    actor.send({ type: 'chat.send', text: 'hi' });
    expect(worker.posted.at(-1)).toMatchObject({
      options: { temperature: 1.2, topP: 0.9, maxNewTokens: 48, systemPrompt: 'Be brief.' },
    });
    expect(actor.getSnapshot().context.modelId).toBe('m');
  });

  it('chat.settings out of range never reaches the worker', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.settings', patch: { temperature: 7 } });
    actor.send({ type: 'chat.send', text: 'hi' });
    expect(worker.posted.at(-1)).toMatchObject({ options: { temperature: 0 } });
  });

  it('worker.complete keeps the figures on the reply', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'q' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send(update('a', 1, 5));
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.2, interrupted: true },
    });
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'a',
      figures: { numTokens: 1, seconds: 0.2, tps: 5 },
    });
  });

  it('chat.load in idle shows another conversation and its settings', () => {
    const { actor } = ready();
    const settings = { ...actor.getSnapshot().context.settings, temperature: 1 };
    const messages = [{ role: 'user' as const, content: 'old' }];
    actor.send({ type: 'chat.load', messages, settings });
    expect(actor.getSnapshot().context.messages).toBe(messages);
    expect(actor.getSnapshot().context.settings).toBe(settings);
  });

  it('generating → chat.load interrupts the reply and ignores its tail (resetting)', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'q' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    const settings = actor.getSnapshot().context.settings;
    actor.send({ type: 'chat.load', messages: [], settings });
    expect(actor.getSnapshot().value).toEqual({ replying: 'resetting' });
    expect(worker.posted.at(-1)).toEqual({ type: 'interrupt' });
    actor.send(update('tail', 2));
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 2, seconds: 1, interrupted: true },
    });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.messages).toEqual([]);
  });

  it('idle → worker.loading (a model switch) → unavailable → worker.ready → idle', () => {
    const { actor } = ready();
    actor.send({
      type: 'worker.loading',
      message: { status: 'loading', data: 'Loading model...' },
    });
    expect(actor.getSnapshot().value).toBe('unavailable');
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'b', dtype: 'q4' } },
    });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.modelId).toBe('b');
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
    // The text stays as shown; the reply's figures are kept with it (saved conversations).
    expect(actor.getSnapshot().context.messages.at(-1)).toMatchObject(final);
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
      expect(actor.getSnapshot().value).toEqual({ replying: 'generating' });
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

  // Before the heartbeat a dead worker froze the reply for 60 s; a slow one must still never be called dead.
  it('generating ⇄ worker.alive: a slow but live reply (a long prefill) is never abandoned; silence after it is', () => {
    vi.useFakeTimers();
    try {
      const { actor, worker } = ready();
      actor.send({ type: 'chat.send', text: 'a long prompt' });
      // Ten times the allowed silence without a token, the worker beating every 2 s.
      for (let t = 0; t < 10 * REPLY_STALL_MS; t += 2000) {
        vi.advanceTimersByTime(2000);
        actor.send({ type: 'worker.alive', message: { status: 'alive' } });
      }
      expect(actor.getSnapshot().value).toEqual({ replying: 'generating' });
      expect(worker.posted.some((r) => r.type === 'abandon')).toBe(false);
      actor.send({ type: 'worker.start', message: { status: 'start' } });
      actor.send(update('late but fine', 3));
      // The beat stops (the worker closed itself): abandoned after the allowed silence.
      vi.advanceTimersByTime(REPLY_STALL_MS - 1);
      expect(actor.getSnapshot().value).toEqual({ replying: 'generating' });
      vi.advanceTimersByTime(1);
      expect(worker.posted.at(-1)).toMatchObject({ type: 'abandon' });
      expect(actor.getSnapshot().value).toBe('unavailable');
    } finally {
      vi.useRealTimers();
    }
  });

  it('stopping ⇄ worker.alive: a Stop waiting for a slow step keeps waiting while the worker beats', () => {
    const fast = chatMachine.provide({ delays: { replyStall: 50 } });
    vi.useFakeTimers();
    try {
      const worker = fakeWorker();
      const actor = createActor(fast, { input: { worker } }).start();
      actor.send({ type: 'worker.ready', message: { status: 'ready' } });
      actor.send({ type: 'chat.send', text: 'a' });
      actor.send({ type: 'chat.stop' });
      for (let i = 0; i < 20; i++) {
        vi.advanceTimersByTime(40);
        actor.send({ type: 'worker.alive', message: { status: 'alive' } });
      }
      expect(actor.getSnapshot().value).toEqual({ replying: 'stopping' });
      actor.send({
        type: 'worker.complete',
        message: { status: 'complete', numTokens: 0, seconds: 1, interrupted: true },
      });
      expect(actor.getSnapshot().value).toBe('idle');
      expect(worker.posted.some((r) => r.type === 'abandon')).toBe(false);
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
    expect(actor.getSnapshot().value).toEqual({ replying: 'resetting' });
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
