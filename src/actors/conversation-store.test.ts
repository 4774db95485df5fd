import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { createActor, createMachine, waitFor, type AnyActorRef } from 'xstate';
import { openDB } from 'idb';
import { defaultSettings } from '../shared/generation-settings';
import type { Conversation } from '../shared/conversations/types';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
import { createConversationStoreActor, toStoreError } from './conversation-store';
import { DB_VERSION, openStore } from './conversation-db';

let n = 0;
const freshName = () => `test-db-${(n += 1)}-${Math.random()}`;

function conv(id: string, text: string, updatedAt: number): Conversation {
  return {
    id,
    createdAt: updatedAt,
    updatedAt,
    modelId: 'm',
    settings: defaultSettings(),
    messages: [{ role: 'user', content: text }],
  };
}

/** A database as versions 2 and 3 of the app created it: the store and the newest-first index. */
const openOld = (name: string, version: number) =>
  openDB(name, version, {
    upgrade: (db) => {
      const store = db.createObjectStore('conversations', { keyPath: 'id' });
      store.createIndex('by-updated', 'updatedAt');
    },
  });

/** Runs the store actor under a parent that records what it sends back. */
function harness(open: () => ReturnType<typeof openStore>) {
  const results: StoreResult[] = [];
  const parent = createMachine({
    invoke: { id: 'store', src: createConversationStoreActor(open) },
    on: { '*': { actions: ({ event }) => results.push(event as StoreResult) } },
  });
  const actor = createActor(parent).start();
  const send = (command: StoreCommand) =>
    (actor.getSnapshot().children.store as AnyActorRef).send(command);
  return { results, send, actor };
}

describe('conversation store (IndexedDB via idb)', () => {
  it('puts, lists newest first, gets and deletes, in order', async () => {
    const name = freshName();
    const { results, send } = harness(() => openStore({ name }));
    send({ type: 'store.put', conversation: conv('a', 'first', 1) });
    send({ type: 'store.put', conversation: conv('b', 'second', 2) });
    send({ type: 'store.list' });
    send({ type: 'store.get', id: 'a' });
    send({ type: 'store.rename', id: 'b', title: ' Renamed ' });
    send({ type: 'store.delete', id: 'a' });
    send({ type: 'store.list' });
    send({ type: 'store.rename', id: 'gone', title: 'x' });
    await vi.waitFor(() => expect(results).toHaveLength(8));
    expect(results.map((r) => r.type)).toEqual([
      'store.saved',
      'store.saved',
      'store.listed',
      'store.loaded',
      'store.saved',
      'store.deleted',
      'store.listed',
      'store.failed',
    ]);
    expect(results[2]).toMatchObject({
      conversations: [
        { id: 'b', title: 'second' },
        { id: 'a', title: 'first' },
      ],
    });
    expect(results[3]).toMatchObject({ conversation: { id: 'a' } });
    expect(results[4]).toMatchObject({ summary: { id: 'b', title: 'Renamed' } });
    expect(results[6]).toMatchObject({ conversations: [{ id: 'b', title: 'Renamed' }] });
    expect(results[7]).toMatchObject({
      op: 'store.rename',
      error: { kind: 'failed', message: /no longer exists/ },
    });
  });

  it('a reply saved mid-stream comes back marked interrupted', async () => {
    const name = freshName();
    const { results, send } = harness(() => openStore({ name }));
    const c = conv('s', 'q', 1);
    c.messages.push({ role: 'assistant', content: 'half', streaming: true });
    send({ type: 'store.put', conversation: c });
    send({ type: 'store.get', id: 's' });
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results[1]).toMatchObject({
      conversation: { messages: [{}, { content: 'half', interrupted: true }] },
    });
  });

  it('migrates a version-1 database: records without settings get the defaults', async () => {
    const name = freshName();
    const v1 = await openDB(name, 1, {
      upgrade: (db) => void db.createObjectStore('conversations', { keyPath: 'id' }),
    });
    await v1.put('conversations', {
      id: 'old',
      createdAt: 1,
      updatedAt: 1,
      modelId: '',
      messages: [],
    });
    v1.close();
    const db = await openStore({ name });
    expect((await db.get('conversations', 'old'))?.settings).toEqual(defaultSettings(4096));
    expect(db.objectStoreNames.contains('conversations')).toBe(true);
    db.close();
  });

  it('migrates a version-2 database (the shape before message versions): nothing is lost', async () => {
    const name = freshName();
    // Created as the version-2 code did: the store, the newest-first index, records with schema 2.
    const v2 = await openOld(name, 2);
    const old: Conversation = {
      ...conv('old', 'What is rain?', 5),
      customTitle: 'Rain',
      settings: { ...defaultSettings(), temperature: 0.7, systemPrompt: 'Be brief.' },
    };
    old.messages.push(
      {
        role: 'assistant',
        content: 'Water falling.',
        thinking: 'Simple.',
        figures: { numTokens: 3, seconds: 0.5, tps: 6 },
        ended: { by: 'limit', limit: 3 },
      },
      { role: 'user', content: 'More?' },
      { role: 'assistant', content: 'Clouds', streaming: true },
    );
    await v2.put('conversations', { ...old, schema: 2 });
    await v2.put('conversations', { ...conv('newer', 'x', 9), schema: 2 });
    v2.close();

    const { results, send } = harness(() => openStore({ name }));
    send({ type: 'store.list' });
    send({ type: 'store.get', id: 'old' });
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results[0]).toMatchObject({
      conversations: [
        { id: 'newer', title: 'x' },
        { id: 'old', title: 'Rain' },
      ],
    });
    const { messages, ...rest } = old;
    expect(results[1]).toEqual({
      type: 'store.loaded',
      conversation: {
        ...rest,
        // The reply saved mid-stream reads back as interrupted, as before.
        messages: [
          ...messages.slice(0, 3),
          { role: 'assistant', content: 'Clouds', interrupted: true },
        ],
      },
    });
    const db = await openStore({ name });
    expect((await db.get('conversations', 'old'))?.schema).toBe(DB_VERSION);
    db.close();
  });

  it('migrates a version-3 database (before the context-window state): nothing is lost, the defaults apply', async () => {
    const name = freshName();
    // Created as the version-3 code did, with a record holding other versions of its reply.
    const v3 = await openOld(name, 3);
    const old = conv('old', 'Hi', 5);
    old.messages.push({
      role: 'assistant',
      content: 'B',
      version: 1,
      alternatives: [[{ role: 'assistant', content: 'A' }]],
    });
    await v3.put('conversations', { ...old, schema: 3 });
    v3.close();

    const { results, send } = harness(() => openStore({ name }));
    send({ type: 'store.get', id: 'old' });
    await vi.waitFor(() => expect(results).toHaveLength(1));
    // No whenTooLong and no omitted: the chat leaves the oldest turns out and shows no marker.
    expect(results[0]).toEqual({ type: 'store.loaded', conversation: old });
    const db = await openStore({ name });
    expect((await db.get('conversations', 'old'))?.schema).toBe(4);
    db.close();
  });

  it('a conversation with its refusal setting and cut reads back whole', async () => {
    const name = freshName();
    const { results, send } = harness(() => openStore({ name }));
    const c: Conversation = { ...conv('w', 'long', 1), whenTooLong: 'refuse', omitted: 4 };
    send({ type: 'store.put', conversation: c });
    send({ type: 'store.get', id: 'w' });
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results[1]).toEqual({ type: 'store.loaded', conversation: c });
  });

  it('a conversation with other versions (regenerated replies, an edited branch) reads back whole', async () => {
    const name = freshName();
    const { results, send } = harness(() => openStore({ name }));
    const c = conv('v', 'edited', 1);
    c.messages[0] = {
      role: 'user',
      content: 'edited',
      version: 1,
      alternatives: [
        [
          { role: 'user', content: 'first' },
          {
            role: 'assistant',
            content: 'B',
            version: 0,
            alternatives: [[{ role: 'assistant', content: 'A' }]],
          },
        ],
      ],
    };
    send({ type: 'store.put', conversation: c });
    send({ type: 'store.get', id: 'v' });
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results[1]).toEqual({ type: 'store.loaded', conversation: c });
  });

  it.each([2, 3])(
    'an older app (version %i) cannot open the migrated database and drop what it does not know',
    async (version) => {
      const name = freshName();
      (await openStore({ name })).close();
      const error: unknown = await openStore({ name, version }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'VersionError' });
      expect(toStoreError(error).message).toMatch(/newer version of this app/);
    },
  );

  it('a failed open (private mode) fails each command with a typed error, never throws', async () => {
    const unavailable = Object.assign(new Error('denied'), { name: 'InvalidStateError' });
    const { results, send } = harness(() => Promise.reject(unavailable));
    send({ type: 'store.list' });
    await vi.waitFor(() => expect(results).toHaveLength(1));
    expect(results[0]).toMatchObject({
      type: 'store.failed',
      op: 'store.list',
      error: { kind: 'unavailable' },
    });
  });

  it('a blocked upgrade is reported as blocked', async () => {
    const name = freshName();
    const old = await openDB(name, 1, {
      upgrade: (db) => void db.createObjectStore('conversations', { keyPath: 'id' }),
    });
    // The old connection ignores versionchange, so the upgrade is blocked.
    await expect(openStore({ name })).rejects.toMatchObject({ name: 'BlockedError' });
    old.close();
  });

  it('maps quota and unknown errors to messages a person can act on', () => {
    const quota = toStoreError(new DOMException('full', 'QuotaExceededError'));
    expect(quota.kind).toBe('quota');
    expect(quota.message).toMatch(/storage is full/);
    expect(toStoreError(new Error('boom'))).toEqual({
      kind: 'failed',
      message: 'Conversation storage failed: boom',
    });
  });

  it('closes its database once stopped, so nothing is left open', async () => {
    let closed = false;
    const { actor, send, results } = harness(async () => {
      const db = await openStore({ name: freshName() });
      const close = db.close.bind(db);
      db.close = () => {
        closed = true;
        close();
      };
      return db;
    });
    send({ type: 'store.list' });
    await vi.waitFor(() => expect(results).toHaveLength(1));
    expect(closed).toBe(false);
    actor.stop();
    await waitFor(actor, (s) => s.status === 'stopped');
    await vi.waitFor(() => expect(closed).toBe(true));
  });
});
