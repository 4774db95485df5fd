/**
 * Saved evaluations (Compare) in IndexedDB through `idb`, a database of their own so the
 * conversations' schema and its migrations are untouched. Saves go through one queue, in order;
 * every failure is an {@link EvaluationStoreError} with a message a person can act on (storage
 * full, private mode, an upgrade blocked by another tab), never a bare log.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { fromCallback } from 'xstate';
import { EVALUATION_VERSION, type EvaluationRecord } from '../shared/evaluation';
import { errorMessage } from '../shared/errors';
import type { EvaluationStoreCommand, EvaluationStoreResult } from '../machines/evaluationMachine';

export const EVALUATION_DB_NAME = 'local-llm-studio-evaluations';
export const EVALUATION_DB_VERSION = 1;

interface EvaluationDB extends DBSchema {
  evaluations: {
    key: string;
    value: EvaluationRecord;
    indexes: { 'by-updated': number };
  };
}

type Db = IDBPDatabase<EvaluationDB>;

export type EvaluationStoreErrorKind = 'quota' | 'blocked' | 'unavailable' | 'not-found' | 'failed';

export class EvaluationStoreError extends Error {
  constructor(
    readonly kind: EvaluationStoreErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EvaluationStoreError';
  }
}

/** Maps a DOMException (or anything thrown) to a typed error with an actionable message. */
export function toEvaluationStoreError(error: unknown): EvaluationStoreError {
  if (error instanceof EvaluationStoreError) return error;
  const name = error instanceof Error || error instanceof DOMException ? error.name : '';
  const options = { cause: error };
  if (name === 'QuotaExceededError')
    return new EvaluationStoreError(
      'quota',
      'Browser storage is full, so this evaluation was not saved. The table stays on screen: export it (CSV or JSON), or free space (Stored models → Delete) and it is saved with the next answer.',
      options,
    );
  if (name === 'BlockedError')
    return new EvaluationStoreError(
      'blocked',
      'Saved evaluations are locked by another tab running an older version of this app. Close the other tabs and reload; what is on screen stays.',
      options,
    );
  if (name === 'InvalidStateError' || name === 'SecurityError' || name === 'UnavailableError')
    return new EvaluationStoreError(
      'unavailable',
      'This browser does not allow saving here (private mode or storage disabled), so evaluations will not survive a reload. Export them instead.',
      options,
    );
  return new EvaluationStoreError(
    'failed',
    `Evaluation storage failed: ${errorMessage(error)}`,
    options,
  );
}

function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

/** Opens (and creates) the database; rejects with a named error when blocked or unavailable. */
export async function openEvaluationDb(name = EVALUATION_DB_NAME): Promise<Db> {
  if (typeof indexedDB === 'undefined')
    throw named('UnavailableError', 'IndexedDB is not available');
  const { openDB } = await import('idb');
  return new Promise<Db>((resolve, reject) => {
    openDB<EvaluationDB>(name, EVALUATION_DB_VERSION, {
      upgrade(db, oldVersion) {
        if (oldVersion < 1) {
          const store = db.createObjectStore('evaluations', { keyPath: 'id' });
          store.createIndex('by-updated', 'updatedAt');
        }
      },
      blocked() {
        reject(named('BlockedError', 'upgrade blocked by another tab'));
      },
      blocking(_current, _blocked, event) {
        if (event.target instanceof IDBDatabase) event.target.close();
      },
    }).then(resolve, reject);
  });
}

/** One saved evaluation in the list: enough to name it. */
export interface SavedEvaluation {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: EvaluationRecord['status'];
  a: string;
  b: string;
  questions: number;
}

export interface EvaluationStore {
  save(record: EvaluationRecord): Promise<void>;
  /** Newest first. */
  list(): Promise<SavedEvaluation[]>;
  get(id: string): Promise<EvaluationRecord>;
  remove(id: string): Promise<void>;
}

const summaryOf = (r: EvaluationRecord): SavedEvaluation => ({
  id: r.id,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  status: r.status,
  a: r.a.label,
  b: r.b.label,
  questions: r.rows.length,
});

/** The store over IndexedDB; `open` is injectable (tests: fake-indexeddb, or a failing open). */
export function createEvaluationStore(open: () => Promise<Db> = () => openEvaluationDb()) {
  let db: Promise<Db> | null = null;
  const connect = () =>
    (db ??= open().catch((error: unknown) => {
      // A failed open is retried by the next call (the user may have freed space or closed a tab).
      db = null;
      throw error;
    }));
  const guard = async <T>(work: (db: Db) => Promise<T>): Promise<T> => {
    try {
      return await work(await connect());
    } catch (error) {
      throw toEvaluationStoreError(error);
    }
  };
  const store: EvaluationStore = {
    save: (record) => guard(async (d) => void (await d.put('evaluations', record))),
    list: () =>
      guard(async (d) =>
        (await d.getAll('evaluations'))
          .filter((r) => r.version === EVALUATION_VERSION)
          .map(summaryOf)
          .sort((x, y) => y.updatedAt - x.updatedAt),
      ),
    get: (id) =>
      guard(async (d) => {
        const found = await d.get('evaluations', id);
        if (!found || found.version !== EVALUATION_VERSION)
          throw new EvaluationStoreError('not-found', 'That evaluation is no longer saved.');
        return found;
      }),
    remove: (id) => guard((d) => d.delete('evaluations', id)),
  };
  return store;
}

/** The evaluation machine's `store` actor: saves in the order sent, each answered. */
export function createEvaluationStoreActor(store: EvaluationStore) {
  return fromCallback<EvaluationStoreCommand>(({ sendBack, receive }) => {
    let queue: Promise<unknown> = Promise.resolve();
    receive((command) => {
      queue = queue.then(async () => {
        try {
          await store.save(command.record);
          sendBack({
            type: 'evaluationStore.saved',
            id: command.record.id,
          } satisfies EvaluationStoreResult);
        } catch (error) {
          sendBack({
            type: 'evaluationStore.failed',
            message: toEvaluationStoreError(error).message,
          } satisfies EvaluationStoreResult);
        }
      });
    });
  });
}
