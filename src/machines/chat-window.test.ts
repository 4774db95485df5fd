/** The chat machine and the model's context window: the debounced count, the cut, the refusal. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { chatMachine } from './chatMachine';
import { selectOmitted } from './chatSelectors';
import { selectContextWindow, selectUsedTokens } from './contextSelectors';
import { fakeWorker } from './test-helpers';

const WINDOW = {
  tokens: 128,
  source: 'config' as const,
  reason: "the model's max_position_embeddings",
};

function ready() {
  const worker = fakeWorker();
  const actor = createActor(chatMachine, { input: { worker } }).start();
  actor.send({
    type: 'worker.ready',
    message: { status: 'ready', data: { id: 'm', dtype: 'fp32', contextWindow: WINDOW } },
  });
  return { actor, worker };
}

const counts = (worker: ReturnType<typeof fakeWorker>) =>
  worker.posted.filter((e) => e.type === 'count');

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('chatMachine: the context window', () => {
  it('worker.ready → the window is kept; typing → one count after the pause, with the draft', () => {
    const { actor, worker } = ready();
    expect(selectContextWindow(actor.getSnapshot())).toEqual(WINDOW);
    vi.advanceTimersByTime(250);
    expect(counts(worker)).toHaveLength(1);
    actor.send({ type: 'chat.input', text: 'Hel' });
    vi.advanceTimersByTime(100);
    actor.send({ type: 'chat.input', text: 'Hello ' });
    vi.advanceTimersByTime(249);
    // Still typing: no count yet.
    expect(counts(worker)).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(counts(worker)).toEqual([
      expect.objectContaining({ seq: 1 }),
      { type: 'count', data: [], draft: 'Hello', options: { systemPrompt: '' }, seq: 2 },
    ]);
  });

  it('worker.count → the used tokens; an answer to an older count is dropped', () => {
    const { actor } = ready();
    vi.advanceTimersByTime(250);
    actor.send({ type: 'chat.input', text: 'Hello' });
    vi.advanceTimersByTime(250);
    actor.send({
      type: 'worker.count',
      message: { status: 'count', seq: 1, tokens: 9, draftTokens: 5 },
    });
    expect(selectUsedTokens(actor.getSnapshot())).toBeNull();
    actor.send({
      type: 'worker.count',
      message: { status: 'count', seq: 2, tokens: 12, draftTokens: 8 },
    });
    expect(selectUsedTokens(actor.getSnapshot())).toBe(12);
    actor.send({
      type: 'worker.count',
      message: { status: 'count', seq: 2, error: 'No model is loaded.' },
    });
    expect(selectUsedTokens(actor.getSnapshot())).toBeNull();
  });

  it('a reply after a counted conversation: the count is asked again once it completes', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'Hi' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: false },
    });
    vi.advanceTimersByTime(250);
    expect(counts(worker).at(-1)).toMatchObject({
      data: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '' },
      ],
      draft: '',
    });
  });

  it('worker.start with omitted → the cut is kept for the marker; chat.reset clears it', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'Hi' });
    actor.send({ type: 'worker.start', message: { status: 'start', omitted: 4 } });
    expect(selectOmitted(actor.getSnapshot())).toBe(4);
    actor.send({ type: 'chat.stop' });
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: true },
    });
    actor.send({ type: 'chat.reset' });
    expect(selectOmitted(actor.getSnapshot())).toBe(0);
  });

  it('chat.whenTooLong refuse → the next generate asks for a refusal instead of a cut', () => {
    const { actor, worker } = ready();
    actor.send({ type: 'chat.send', text: 'Hi' });
    expect(worker.posted.at(-1)).not.toHaveProperty('options.whenTooLong');
    actor.send({
      type: 'worker.error',
      message: { status: 'error', data: 'x', phase: 'generate' },
    });
    actor.send({ type: 'chat.whenTooLong', value: 'refuse' });
    actor.send({ type: 'chat.send', text: 'Again' });
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'generate',
      options: { whenTooLong: 'refuse' },
    });
  });

  it('a send refused as too long → idle, the error shown, the text back in the box', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'Earlier' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: false },
    });
    const before = actor.getSnapshot().context.messages;
    actor.send({ type: 'chat.input', text: 'a very long message' });
    actor.send({ type: 'chat.send' });
    const error =
      "This message is 300 tokens as the model sees it; with Max new tokens (16) that is more than the model's window of 128 tokens. Shorten it or lower Max new tokens.";
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    actor.send({
      type: 'worker.error',
      message: { status: 'error', data: error, phase: 'generate', tooLong: 'message' },
    });
    spy.mockRestore();
    const s = actor.getSnapshot();
    expect(s.value).toBe('idle');
    expect(s.context.error).toBe(error);
    expect(s.context.draft).toBe('a very long message');
    expect(s.context.messages).toEqual(before);
  });

  it('another error after a send (not the window) leaves the message where it is', () => {
    const { actor } = ready();
    actor.send({ type: 'chat.send', text: 'Hi' });
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    actor.send({
      type: 'worker.error',
      message: { status: 'error', data: 'boom', phase: 'generate' },
    });
    spy.mockRestore();
    expect(actor.getSnapshot().context.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(actor.getSnapshot().context.draft).toBe('');
  });
});
