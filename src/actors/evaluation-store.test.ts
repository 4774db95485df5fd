import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import {
  createEvaluationStore,
  createEvaluationStoreActor,
  openEvaluationDb,
  toEvaluationStoreError,
} from './evaluation-store';
import { EVALUATION_VERSION, type EvaluationRecord } from '../shared/evaluation';
import { defaultSettings } from '../shared/generation-settings';
import type { EvaluationStoreCommand, EvaluationStoreResult } from '../machines/evaluationMachine';

let n = 0;
const freshName = () => `eval-db-${(n += 1)}-${Math.random()}`;

function record(id: string, updatedAt: number): EvaluationRecord {
  return {
    version: EVALUATION_VERSION,
    id,
    createdAt: updatedAt,
    updatedAt,
    status: 'done',
    error: null,
    source: { kind: 'pasted' },
    settings: defaultSettings(),
    a: { value: 'a', label: 'Model A', id: 'a' },
    b: { value: 'b', label: 'Model B', id: 'b' },
    rows: [
      {
        prompt: 'q',
        reference: 'r',
        a: { text: 'x', numTokens: 1, seconds: 1, truncated: false },
        b: null,
      },
    ],
  };
}

const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

describe('evaluation store (IndexedDB via idb)', () => {
  it('saves, lists newest first, gets and removes; survives a new connection', async () => {
    const name = freshName();
    const store = createEvaluationStore(() => openEvaluationDb(name));
    await store.save(record('one', 1));
    await store.save(record('two', 2));
    await store.save({ ...record('one', 3), status: 'stopped' });
    // A reload: a new store over the same database.
    const again = createEvaluationStore(() => openEvaluationDb(name));
    expect(await again.list()).toEqual([
      {
        id: 'one',
        createdAt: 3,
        updatedAt: 3,
        status: 'stopped',
        a: 'Model A',
        b: 'Model B',
        questions: 1,
      },
      {
        id: 'two',
        createdAt: 2,
        updatedAt: 2,
        status: 'done',
        a: 'Model A',
        b: 'Model B',
        questions: 1,
      },
    ]);
    expect(await again.get('two')).toEqual(record('two', 2));
    await again.remove('two');
    await expect(again.get('two')).rejects.toMatchObject({
      kind: 'not-found',
      message: 'That evaluation is no longer saved.',
    });
  });

  it('storage full: a typed error that says why and what to do', async () => {
    const name = freshName();
    const store = createEvaluationStore(async () => {
      const db = await openEvaluationDb(name);
      vi.spyOn(db, 'put').mockRejectedValue(quotaError());
      return db;
    });
    await expect(store.save(record('x', 1))).rejects.toMatchObject({
      kind: 'quota',
      message: expect.stringMatching(
        /^Browser storage is full, so this evaluation was not saved\. The table stays on screen/,
      ),
    });
  });

  it('no IndexedDB (private mode): unavailable, and the next call tries again', async () => {
    let fail = true;
    const name = freshName();
    const store = createEvaluationStore(() => {
      if (fail) {
        const e = new Error('IndexedDB is not available');
        e.name = 'UnavailableError';
        return Promise.reject(e);
      }
      return openEvaluationDb(name);
    });
    await expect(store.list()).rejects.toMatchObject({ kind: 'unavailable' });
    fail = false;
    expect(await store.list()).toEqual([]);
  });

  it('maps other errors to a message naming the cause', () => {
    expect(toEvaluationStoreError(new Error('disk on fire'))).toMatchObject({
      kind: 'failed',
      message: 'Evaluation storage failed: disk on fire',
    });
  });

  it("the machine's store actor answers every save in order, failures as messages", async () => {
    const name = freshName();
    let full = false;
    const store = createEvaluationStore(async () => {
      const db = await openEvaluationDb(name);
      const put = db.put.bind(db);
      vi.spyOn(db, 'put').mockImplementation((...args) =>
        full ? Promise.reject(quotaError()) : put(...args),
      );
      return db;
    });
    const results: EvaluationStoreResult[] = [];
    const parent = createMachine({
      types: {} as { events: EvaluationStoreResult },
      invoke: { id: 'store', src: createEvaluationStoreActor(store) },
      on: { '*': { actions: ({ event }) => void results.push(event) } },
    });
    const actor = createActor(parent).start();
    const send = (command: EvaluationStoreCommand) =>
      (actor.getSnapshot().children.store as AnyActorRef).send(command);
    send({ type: 'save', record: record('a', 1) });
    await vi.waitFor(() => expect(results).toHaveLength(1));
    full = true;
    send({ type: 'save', record: record('a', 2) });
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results[0]).toEqual({ type: 'evaluationStore.saved', id: 'a' });
    expect(results[1]).toMatchObject({
      type: 'evaluationStore.failed',
      message: expect.stringContaining('Browser storage is full'),
    });
    expect((await store.get('a')).updatedAt).toBe(1);
  });
});
