import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, waitFor } from 'xstate';
import {
  conversationsMachine,
  type ChatLoad,
  type ChatState,
  type ConversationsEvent,
} from './conversationsMachine';
import { selectConversationList, selectCurrentId } from './conversationsSelectors';
import { defaultSettings } from '../shared/generation-settings';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
import type { Conversation, ConversationMessage } from '../shared/conversations/types';
import { titleOf } from '../shared/conversations/types';
import { parseConversationFile, toJson } from '../shared/conversations/file';
import { readyChat, recorder } from './test-helpers';
import { watchChat } from './chat-watch';

/**
 * A fake persistence actor over a Map: records every command and answers like the real one
 * (`failOn` makes one kind of command fail with a quota error).
 */
function fakeStore(options: { initial?: Conversation[]; failOn?: StoreCommand['type'] } = {}) {
  const records = new Map((options.initial ?? []).map((c) => [c.id, c]));
  const commands: StoreCommand[] = [];
  const summary = (c: Conversation) => ({
    id: c.id,
    title: c.customTitle ?? c.messages[0]?.content ?? 'New chat',
    updatedAt: c.updatedAt,
  });
  let sendBack: (r: StoreResult) => void = () => undefined;
  const handle = (command: StoreCommand) => {
    commands.push(command);
    const reply = (r: StoreResult) => queueMicrotask(() => sendBack(r));
    if (command.type === options.failOn) {
      reply({
        type: 'store.failed',
        op: command.type,
        error: { kind: 'quota', message: 'Browser storage is full.' },
      });
      return;
    }
    switch (command.type) {
      case 'store.list':
        reply({ type: 'store.listed', conversations: [...records.values()].map(summary) });
        break;
      case 'store.get': {
        const found = records.get(command.id);
        if (found) reply({ type: 'store.loaded', conversation: found });
        break;
      }
      case 'store.put':
        records.set(command.conversation.id, command.conversation);
        reply({ type: 'store.saved', summary: summary(command.conversation) });
        break;
      case 'store.rename': {
        const found = records.get(command.id);
        if (found) {
          const renamed = { ...found, customTitle: command.title.trim() };
          records.set(found.id, renamed);
          reply({ type: 'store.saved', summary: summary(renamed) });
        }
        break;
      }
      case 'store.delete':
        records.delete(command.id);
        reply({ type: 'store.deleted', id: command.id });
        break;
    }
  };
  const actor = createActor(fromCallback<StoreCommand>(({ receive }) => receive(handle))).start();
  const port = Object.assign(actor, {
    connect: (fn: (r: StoreResult) => void) => void (sendBack = fn),
  });
  return { port, commands, records };
}

function start(store = fakeStore(), delays: { saveThrottle: number } = { saveThrottle: 20 }) {
  const chat = recorder<ChatLoad>();
  const loads = chat.posted;
  const actor = createActor(conversationsMachine.provide({ delays }), {
    input: { chat, store: store.port, maxTokensCap: 48 },
  });
  store.port.connect((r) => actor.send(r));
  actor.start();
  return { actor, store, loads };
}

const settings = defaultSettings(48);
/** What the Conversations panel sends for a chosen file (checked with the machine's cap, 48). */
const importOf = (text: string, size = text.length) =>
  ({ type: 'conversation.import', result: parseConversationFile(text, size, 48) }) as const;
const changed = (
  messages: ConversationMessage[],
  streaming = false,
  chatSettings = settings,
): ConversationsEvent =>
  ({
    type: 'chat.changed',
    messages,
    settings: chatSettings,
    modelId: 'local/tiny',
    streaming,
  }) satisfies ChatState & { type: 'chat.changed' };

const saved = (id: string, text: string, updatedAt: number): Conversation => ({
  id,
  createdAt: updatedAt,
  updatedAt,
  modelId: 'local/tiny',
  settings,
  messages: [
    { role: 'user', content: text },
    { role: 'assistant', content: `re: ${text}` },
  ],
});

describe('conversationsMachine', () => {
  it('list.loading → store.listed → list.loaded with the saved conversations', async () => {
    const { actor, store } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }));
    expect(actor.getSnapshot().matches({ list: 'loading' })).toBe(true);
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    expect(store.commands[0]).toEqual({ type: 'store.list' });
    expect(selectConversationList(actor.getSnapshot())).toEqual([
      { id: 'a', title: 'hello', updatedAt: 1 },
    ]);
  });

  it('list.loading → store.failed → list.unavailable, error shown, the chat keeps working', async () => {
    const { actor } = start(fakeStore({ failOn: 'store.list' }));
    await waitFor(actor, (s) => s.matches({ list: 'unavailable' }));
    expect(actor.getSnapshot().context.error).toBe('Browser storage is full.');
  });

  it('an empty new chat is not saved; the first user message creates and saves it', async () => {
    const { actor, store } = start();
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send(changed([]));
    expect(store.commands).toHaveLength(1);
    actor.send(changed([{ role: 'user', content: 'hi' }]));
    const put = store.commands.at(-1);
    expect(put).toMatchObject({ type: 'store.put', conversation: { modelId: 'local/tiny' } });
    await waitFor(actor, (s) => s.context.list.length === 1);
    expect(selectCurrentId(actor.getSnapshot())).toBe(
      put?.type === 'store.put' ? put.conversation.id : 'missing',
    );
  });

  it('saving.clean → streaming chat.changed → dirty → saveThrottle → clean, saved as streaming', async () => {
    const { actor, store } = start();
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    const user: ConversationMessage = { role: 'user', content: 'hi' };
    actor.send(changed([user]));
    actor.send(changed([user, { role: 'assistant', content: 'He' }], true));
    actor.send(changed([user, { role: 'assistant', content: 'Hello' }], true));
    expect(actor.getSnapshot().matches({ saving: 'dirty' })).toBe(true);
    const puts = () => store.commands.filter((c) => c.type === 'store.put');
    expect(puts()).toHaveLength(1);
    await waitFor(actor, (s) => s.matches({ saving: 'clean' }));
    expect(puts()).toHaveLength(2);
    expect(puts()[1]).toMatchObject({
      conversation: { messages: [user, { content: 'Hello', streaming: true }] },
    });
    // The reply completes: saved at once, no longer streaming.
    actor.send(changed([user, { role: 'assistant', content: 'Hello!' }]));
    expect(puts()).toHaveLength(3);
    expect(puts()[2]).toMatchObject({ conversation: { messages: [user, { content: 'Hello!' }] } });
    expect(JSON.stringify(puts()[2])).not.toContain('streaming');
  });

  it('conversation.select → store.get → store.loaded → chat.load; the echo is not saved again', async () => {
    const { actor, store, loads } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }));
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send({ type: 'conversation.select', id: 'a' });
    expect(store.commands.at(-1)).toEqual({ type: 'store.get', id: 'a' });
    await waitFor(actor, (s) => selectCurrentId(s) === 'a');
    expect(loads).toHaveLength(1);
    const load = loads[0] as ChatLoad;
    expect(load.messages.map((m) => m.content)).toEqual(['hello', 're: hello']);
    actor.send(changed(load.messages, false, load.settings));
    expect(store.commands.filter((c) => c.type === 'store.put')).toHaveLength(0);
  });

  it('switching away while a reply streams saves it first', async () => {
    const { actor, store } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }), {
      saveThrottle: 60_000,
    });
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    const user: ConversationMessage = { role: 'user', content: 'new one' };
    actor.send(changed([user]));
    actor.send(changed([user, { role: 'assistant', content: 'part' }], true));
    actor.send({ type: 'conversation.select', id: 'a' });
    const puts = store.commands.filter((c) => c.type === 'store.put');
    expect(puts).toHaveLength(2);
    expect(puts[1]).toMatchObject({ conversation: { messages: [user, { streaming: true }] } });
  });

  it('conversation.new → an empty chat with default settings (marked fresh: the model recommendations apply), nothing saved', async () => {
    const { actor, loads } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }));
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send({ type: 'conversation.select', id: 'a' });
    await waitFor(actor, (s) => selectCurrentId(s) === 'a');
    actor.send({ type: 'conversation.new' });
    expect(selectCurrentId(actor.getSnapshot())).toBeNull();
    expect(loads.at(-1)).toEqual({ type: 'chat.load', messages: [], settings, fresh: true });
  });

  it('a reset chat (no messages) detaches from the saved conversation without overwriting it', async () => {
    const { actor, store } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }));
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send({ type: 'conversation.select', id: 'a' });
    await waitFor(actor, (s) => selectCurrentId(s) === 'a');
    actor.send(changed([]));
    expect(selectCurrentId(actor.getSnapshot())).toBeNull();
    expect(store.commands.filter((c) => c.type === 'store.put')).toHaveLength(0);
    expect(store.records.get('a')?.messages).toHaveLength(2);
  });

  it('conversation.delete of the current one removes it and starts a new chat', async () => {
    const { actor, store, loads } = start(
      fakeStore({ initial: [saved('a', 'hello', 1), saved('b', 'bye', 2)] }),
    );
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send({ type: 'conversation.select', id: 'a' });
    await waitFor(actor, (s) => selectCurrentId(s) === 'a');
    actor.send({ type: 'conversation.delete', id: 'a' });
    expect(store.commands.at(-1)).toEqual({ type: 'store.delete', id: 'a' });
    expect(selectConversationList(actor.getSnapshot()).map((s) => s.id)).toEqual(['b']);
    expect(selectCurrentId(actor.getSnapshot())).toBeNull();
    expect(loads.at(-1)?.messages).toEqual([]);
    await waitFor(actor, () => !store.records.has('a'));
  });

  it('conversation.rename: a valid name is stored; an empty one is refused', async () => {
    const { actor, store } = start(fakeStore({ initial: [saved('a', 'hello', 1)] }));
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send({ type: 'conversation.rename', id: 'a', title: '   ' });
    expect(store.commands).toHaveLength(1);
    actor.send({ type: 'conversation.rename', id: 'a', title: ' Greeting ' });
    expect(store.commands.at(-1)).toEqual({ type: 'store.rename', id: 'a', title: ' Greeting ' });
    await waitFor(actor, (s) => s.context.list[0]?.title === 'Greeting');
  });

  it('conversation.import: a valid file becomes a new, saved conversation on screen', async () => {
    const { actor, store, loads } = start();
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    const text = toJson(saved('x', 'imported question', 5));
    actor.send(importOf(text));
    const put = store.commands.at(-1);
    expect(put?.type).toBe('store.put');
    if (put?.type !== 'store.put') return;
    expect(put.conversation.id).not.toBe('x');
    expect(put.conversation.messages[0]).toEqual({ role: 'user', content: 'imported question' });
    expect(loads.at(-1)?.messages).toBe(put.conversation.messages);
    await waitFor(actor, (s) => s.context.list.length === 1);
  });

  it('conversation.import: other versions and branches reach the chat and the store', async () => {
    const { actor, store, loads } = start();
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    const conversation = saved('y', 'edited question', 6);
    conversation.messages = [
      {
        role: 'user',
        content: 'edited question',
        version: 1,
        alternatives: [[{ role: 'user', content: 'first question' }]],
      },
    ];
    const text = toJson(conversation);
    actor.send(importOf(text));
    const put = store.commands.at(-1);
    expect(put?.type === 'store.put' && put.conversation.messages).toEqual(conversation.messages);
    expect(loads.at(-1)?.messages).toEqual(conversation.messages);
  });

  it.each([
    ['malformed', '{nope', /not valid JSON/],
    ['wrong version', '{"format":"local-llm-studio.conversation","version":9}', /version 9/],
  ])(
    'conversation.import of a %s file shows the error and changes nothing',
    async (_n, text, msg) => {
      const { actor, store, loads } = start();
      await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
      actor.send(importOf(text));
      expect(actor.getSnapshot().context.importError).toMatch(msg);
      expect(store.commands).toHaveLength(1);
      expect(loads).toHaveLength(0);
      actor.send({ type: 'conversation.dismissError' });
      expect(actor.getSnapshot().context.importError).toBeNull();
    },
  );

  it('conversation.import of an oversized file is refused', async () => {
    const { actor } = start();
    actor.send(importOf('{}', 6 * 1024 * 1024));
    expect(actor.getSnapshot().context.importError).toMatch(/too large/);
  });

  it('store.failed on a save shows the error and keeps the conversation on screen', async () => {
    const { actor } = start(fakeStore({ failOn: 'store.put' }));
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    actor.send(changed([{ role: 'user', content: 'keep me' }]));
    await waitFor(actor, (s) => s.context.error !== null);
    expect(actor.getSnapshot().context.error).toBe('Browser storage is full.');
    expect(actor.getSnapshot().context.current?.messages[0]?.content).toBe('keep me');
  });
});

describe('conversationsMachine with the chat: the context-window state is saved', () => {
  /** The real chat (a model with a 128-token window ready) watched by the real watchChat. */
  function withChat(store: ReturnType<typeof fakeStore>) {
    const { chat } = readyChat({ tokens: 128, source: 'config', reason: 'config' });
    const actor = createActor(
      conversationsMachine.provide({ actors: { watchChat }, delays: { saveThrottle: 20 } }),
      { input: { chat, store: store.port, maxTokensCap: 48 } },
    );
    store.port.connect((r) => actor.send(r));
    actor.start();
    return { actor, chat };
  }
  const puts = (store: ReturnType<typeof fakeStore>) =>
    store.commands.filter((c) => c.type === 'store.put');

  it('the refusal setting and the cut are saved, and come back when the conversation is opened', async () => {
    const store = fakeStore();
    const { actor, chat } = withChat(store);
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    chat.send({ type: 'chat.send', text: 'a long one' });
    chat.send({ type: 'worker.start', message: { status: 'start', omitted: 2 } });
    chat.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: false },
    });
    chat.send({ type: 'chat.whenTooLong', value: 'refuse' });
    expect(puts(store).at(-1)).toMatchObject({
      conversation: { whenTooLong: 'refuse', omitted: 2 },
    });
    const id = selectCurrentId(actor.getSnapshot()) ?? '';

    // A new chat starts with the defaults; opening the saved one brings its state back.
    actor.send({ type: 'conversation.new' });
    expect(chat.getSnapshot().context).toMatchObject({ whenTooLong: 'drop-oldest', omitted: 0 });
    actor.send({ type: 'conversation.select', id });
    await waitFor(actor, (s) => selectCurrentId(s) === id);
    expect(chat.getSnapshot().context).toMatchObject({ whenTooLong: 'refuse', omitted: 2 });

    // Back to the default: saved as absent.
    const before = puts(store).length;
    chat.send({ type: 'chat.whenTooLong', value: 'drop-oldest' });
    expect(puts(store)).toHaveLength(before + 1);
    expect(puts(store).at(-1)).toMatchObject({ conversation: { whenTooLong: undefined } });
  });

  // By design the title follows the branch shown: an edited first message names the conversation
  // while its branch is shown, and paging back brings the first name back.
  it('the title follows the branch shown when the first user message was edited', async () => {
    const store = fakeStore();
    const { actor, chat } = withChat(store);
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    const finish = () => {
      chat.send({ type: 'worker.start', message: { status: 'start' } });
      chat.send({
        type: 'worker.complete',
        message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: false },
      });
    };
    chat.send({ type: 'chat.send', text: 'First question' });
    finish();
    const title = () => {
      const put = puts(store).at(-1);
      return put?.type === 'store.put' ? titleOf(put.conversation) : '';
    };
    expect(title()).toBe('First question');
    chat.send({ type: 'chat.edit', index: 0, text: 'Edited question' });
    finish();
    expect(title()).toBe('Edited question');
    await waitFor(actor, (s) => s.context.list[0]?.title === 'Edited question');
    chat.send({ type: 'chat.version', index: 0, version: 0 });
    expect(title()).toBe('First question');
    await waitFor(actor, (s) => s.context.list[0]?.title === 'First question');
  });

  it('a conversation saved before this state existed opens with the defaults and is not saved again', async () => {
    const store = fakeStore({ initial: [saved('old', 'hello', 1)] });
    const { actor, chat } = withChat(store);
    await waitFor(actor, (s) => s.matches({ list: 'loaded' }));
    chat.send({ type: 'chat.whenTooLong', value: 'refuse' });
    actor.send({ type: 'conversation.select', id: 'old' });
    await waitFor(actor, (s) => selectCurrentId(s) === 'old');
    expect(chat.getSnapshot().context).toMatchObject({ whenTooLong: 'drop-oldest', omitted: 0 });
    expect(puts(store)).toHaveLength(0);
  });
});
