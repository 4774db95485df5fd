import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { chatMachine } from './chatMachine';
import { fakeWorker } from './test-helpers';
import { selectContinued, selectNumTokens } from './chatSelectors';
import { branchAt, showVersion, versionCount, versionOf } from './message-versions';
import type { ConversationMessage } from '../shared/conversations/types';

function ready() {
  const worker = fakeWorker();
  const actor = createActor(chatMachine, { input: { worker } }).start();
  actor.send({ type: 'worker.ready', message: { status: 'ready' } });
  return { actor, worker };
}

type Actor = ReturnType<typeof ready>['actor'];

/** One full reply from the worker: start, the text, complete (`finish` as the worker says). */
function reply(actor: Actor, text: string, finish: 'end' | 'length' = 'end') {
  actor.send({ type: 'worker.start', message: { status: 'start' } });
  actor.send({
    type: 'worker.update',
    message: { status: 'update', output: text, numTokens: 4, channel: 'answer' },
  });
  actor.send({
    type: 'worker.complete',
    message: { status: 'complete', numTokens: 4, seconds: 1, interrupted: false, finish },
  });
}

/** A finished exchange: "q" answered with `answer`. */
function answered(answer = 'A1', finish: 'end' | 'length' = 'end') {
  const r = ready();
  r.actor.send({ type: 'chat.send', text: 'q' });
  reply(r.actor, answer, finish);
  return r;
}

const contents = (actor: Actor) => actor.getSnapshot().context.messages.map((m) => m.content);

describe('message versions', () => {
  const list: ConversationMessage[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'a' },
  ];
  it('branchAt keeps the old branch; showVersion swaps it back and forth', () => {
    const branched = branchAt(list, 0, { role: 'user', content: 'q2' });
    expect(branched).toHaveLength(1);
    expect(versionCount(branched[0]!)).toBe(2);
    expect(versionOf(branched[0]!)).toBe(1);
    const back = showVersion(branched, 0, 0);
    expect(back.map((m) => m.content)).toEqual(['q', 'a']);
    expect(versionOf(back[0]!)).toBe(0);
    expect(showVersion(back, 0, 1).map((m) => m.content)).toEqual(['q2']);
    // A version that does not exist leaves the list as it is.
    expect(showVersion(back, 0, 5)).toBe(back);
    expect(showVersion(list, 1, 0)).toBe(list);
  });
});

describe('chatMachine message actions', () => {
  it('idle → chat.regenerate: a new reply to the same messages, the old one kept as 1 / 2', () => {
    const { actor, worker } = answered('A1');
    actor.send({ type: 'chat.regenerate' });
    expect(actor.getSnapshot().value).toEqual({ replying: 'generating' });
    // Same conversation and settings as the first reply, without the reply being replaced.
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'generate',
      data: [{ role: 'user', content: 'q' }],
      options: { maxNewTokens: 1024, temperature: 0 },
    });
    expect(worker.posted.at(-1)).not.toHaveProperty('options.continue');
    reply(actor, 'A2');
    const last = actor.getSnapshot().context.messages.at(-1)!;
    expect(contents(actor)).toEqual(['q', 'A2']);
    expect([versionOf(last), versionCount(last)]).toEqual([1, 2]);
    actor.send({ type: 'chat.version', index: 1, version: 0 });
    expect(contents(actor)).toEqual(['q', 'A1']);
    actor.send({ type: 'chat.regenerate' });
    reply(actor, 'A3');
    const third = actor.getSnapshot().context.messages.at(-1)!;
    expect([versionOf(third), versionCount(third)]).toEqual([2, 3]);
    expect(third.alternatives?.map((t) => t[0]?.content)).toEqual(['A1', 'A2']);
  });

  it('idle → chat.edit: the conversation goes on from the edited message; the old branch stays', () => {
    const { actor, worker } = answered('A1');
    actor.send({ type: 'chat.send', text: 'second' });
    reply(actor, 'B1');
    actor.send({ type: 'chat.edit', index: 0, text: '  q edited ' });
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'generate',
      data: [{ role: 'user', content: 'q edited' }],
    });
    reply(actor, 'E1');
    expect(contents(actor)).toEqual(['q edited', 'E1']);
    actor.send({ type: 'chat.version', index: 0, version: 0 });
    expect(contents(actor)).toEqual(['q', 'A1', 'second', 'B1']);
    actor.send({ type: 'chat.version', index: 0, version: 1 });
    expect(contents(actor)).toEqual(['q edited', 'E1']);
  });

  it('chat.edit of a reply, out of range or with no text is refused', () => {
    const { actor, worker } = answered('A1');
    const before = worker.posted.length;
    actor.send({ type: 'chat.edit', index: 1, text: 'x' });
    actor.send({ type: 'chat.edit', index: 7, text: 'x' });
    actor.send({ type: 'chat.edit', index: 0, text: '   ' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(worker.posted).toHaveLength(before);
    expect(contents(actor)).toEqual(['q', 'A1']);
  });

  it('a reply cut at Max new tokens → chat.continue writes on into the same message', () => {
    const { actor, worker } = answered('Once upon', 'length');
    expect(actor.getSnapshot().context.messages.at(-1)?.ended).toEqual({
      by: 'limit',
      limit: 1024,
    });
    actor.send({ type: 'chat.continue' });
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'generate',
      data: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'Once upon' },
      ],
      options: { continue: true },
    });
    expect(actor.getSnapshot().context.messages.at(-1)?.ended).toBeUndefined();
    reply(actor, ' a time');
    const last = actor.getSnapshot().context.messages.at(-1)!;
    expect(contents(actor)).toEqual(['q', 'Once upon a time']);
    expect(last.ended).toBeUndefined();
    // The figures count both runs; the speed line counts this run's, marked as continued.
    expect(last.figures).toMatchObject({ numTokens: 8, seconds: 2 });
    expect(selectNumTokens(actor.getSnapshot())).toBe(4);
    expect(selectContinued(actor.getSnapshot())).toBe(true);
    // A Regenerate writes a new reply: its run is the whole of it.
    actor.send({ type: 'chat.regenerate' });
    reply(actor, 'Fresh');
    expect(selectContinued(actor.getSnapshot())).toBe(false);
  });

  it('a first reply is not marked continued', () => {
    const { actor } = answered('A1', 'length');
    expect(selectContinued(actor.getSnapshot())).toBe(false);
  });

  it('chat.continue on a reply that ended normally (or was stopped) is refused', () => {
    const { actor, worker } = answered('Done.');
    const before = worker.posted.length;
    actor.send({ type: 'chat.continue' });
    expect(actor.getSnapshot().value).toBe('idle');
    actor.send({ type: 'chat.send', text: 'more' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    actor.send({ type: 'chat.stop' });
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 1, interrupted: true },
    });
    actor.send({ type: 'chat.continue' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(worker.posted.filter((p) => p.type === 'generate')).toHaveLength(2);
    expect(worker.posted.length).toBe(before + 2); // the send's generate and the stop's interrupt
  });

  it('replying → chat.regenerate / chat.edit / chat.continue / chat.version are refused', () => {
    const { actor, worker } = answered('cut', 'length');
    actor.send({ type: 'chat.regenerate' });
    reply(actor, 'R2');
    actor.send({ type: 'chat.send', text: 'next' });
    actor.send({ type: 'worker.start', message: { status: 'start' } });
    const snapshot = actor.getSnapshot();
    const posted = worker.posted.length;
    actor.send({ type: 'chat.regenerate' });
    actor.send({ type: 'chat.edit', index: 0, text: 'other' });
    actor.send({ type: 'chat.continue' });
    actor.send({ type: 'chat.version', index: 1, version: 0 });
    expect(actor.getSnapshot().value).toEqual({ replying: 'generating' });
    expect(actor.getSnapshot().context.messages).toBe(snapshot.context.messages);
    expect(worker.posted).toHaveLength(posted);
  });

  it('unavailable (no model) → chat.regenerate is ignored', () => {
    const worker = fakeWorker();
    const actor = createActor(chatMachine, { input: { worker } }).start();
    actor.send({
      type: 'chat.load',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
      settings: actor.getSnapshot().context.settings,
    });
    actor.send({ type: 'chat.regenerate' });
    expect(actor.getSnapshot().value).toBe('unavailable');
    expect(worker.posted).toEqual([]);
  });
});
