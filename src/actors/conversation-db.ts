/**
 * The conversations' IndexedDB database through `idb`: its schema, migrations and the store
 * commands. Loaded by the persistence actor (conversation-store.ts) with a dynamic import, so it
 * and idb stay out of the first load.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';
import type { Conversation } from '../shared/conversations/types';
import { reviveMessages, summaryOf, sortSummaries } from '../shared/conversations/types';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
import { sanitizeSettings, MAX_TOKENS_LIMIT } from '../shared/generation-settings';

export const DB_NAME = 'local-llm-studio';
/** IndexedDB schema version; each step of `MIGRATIONS` upgrades from the previous one. */
export const DB_VERSION = 4;

interface StudioDB extends DBSchema {
  conversations: {
    key: string;
    value: Conversation & { schema?: number };
    indexes: { 'by-updated': number };
  };
}

export type Db = IDBPDatabase<StudioDB>;
type UpgradeTx = IDBPTransaction<StudioDB, Array<'conversations'>, 'versionchange'>;

/** A step that keeps every record as it is and stamps it with the new `schema`. */
const stamp = (schema: number) => async (_db: Db, tx: UpgradeTx) => {
  const store = tx.objectStore('conversations');
  let cursor = await store.openCursor();
  while (cursor) {
    await cursor.update({ ...cursor.value, schema });
    cursor = await cursor.continue();
  }
};

/** Schema migrations: index i upgrades version i to i + 1. */
const MIGRATIONS: Array<(db: Db, tx: UpgradeTx) => Promise<void> | void> = [
  // 0 → 1: the conversations store.
  (db) => {
    db.createObjectStore('conversations', { keyPath: 'id' });
  },
  // 1 → 2: an index for the newest-first list; records from version 1 lacked settings.
  async (_db, tx) => {
    const store = tx.objectStore('conversations');
    store.createIndex('by-updated', 'updatedAt');
    let cursor = await store.openCursor();
    while (cursor) {
      const value = cursor.value;
      await cursor.update({
        ...value,
        settings: sanitizeSettings(value.settings, MAX_TOKENS_LIMIT),
        schema: 2,
      });
      cursor = await cursor.continue();
    }
  },
  // 2 → 3: messages may carry other versions (Regenerate, Edit). Records keep their messages as
  // they are; the new version keeps an older app (which would save without the versions) out.
  stamp(3),
  // 3 → 4: a conversation may carry its context-window state (whenTooLong, omitted; absent = the
  // defaults), which an older app would drop on its next save.
  stamp(4),
];

function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

export interface OpenOptions {
  name?: string;
  version?: number;
}

/** Opens (and upgrades) the database; rejects with a named error when blocked or unavailable. */
export async function openStore({
  name = DB_NAME,
  version = DB_VERSION,
}: OpenOptions = {}): Promise<Db> {
  if (typeof indexedDB === 'undefined')
    throw named('UnavailableError', 'IndexedDB is not available');
  // idb arrives as its own small chunk, after the first paint.
  const { openDB } = await import('idb');
  return new Promise<Db>((resolve, reject) => {
    openDB<StudioDB>(name, version, {
      upgrade(db, oldVersion, newVersion, tx) {
        // Steps only await IndexedDB requests, so the upgrade transaction stays open; a failing
        // step aborts it and the open rejects.
        void (async () => {
          for (let v = oldVersion; v < (newVersion ?? version); v += 1)
            await MIGRATIONS[v]?.(db, tx);
        })().catch(() => tx.abort());
      },
      // Another tab holds an older version open: say so instead of waiting forever.
      blocked() {
        reject(named('BlockedError', 'upgrade blocked by another tab'));
      },
      // Another tab wants a newer schema: step aside so it can upgrade.
      blocking(_current, _blocked, event) {
        if (event.target instanceof IDBDatabase) event.target.close();
      },
    }).then(resolve, reject);
  });
}

export async function run(db: Db, command: StoreCommand): Promise<StoreResult> {
  switch (command.type) {
    case 'store.list': {
      const all = await db.getAll('conversations');
      return { type: 'store.listed', conversations: sortSummaries(all.map(summaryOf)) };
    }
    case 'store.get': {
      const found = await db.get('conversations', command.id);
      if (!found) throw named('NotFoundError', 'that conversation no longer exists');
      const { schema: _schema, ...conversation } = found;
      return {
        type: 'store.loaded',
        conversation: { ...conversation, messages: reviveMessages(conversation.messages) },
      };
    }
    case 'store.put':
      await db.put('conversations', { ...command.conversation, schema: DB_VERSION });
      return { type: 'store.saved', summary: summaryOf(command.conversation) };
    case 'store.rename': {
      // Read and write in one transaction, so a rename never undoes a save queued before it.
      const tx = db.transaction('conversations', 'readwrite');
      const found = await tx.store.get(command.id);
      if (!found) throw named('NotFoundError', 'that conversation no longer exists');
      const renamed = { ...found, customTitle: command.title.trim() };
      await tx.store.put(renamed);
      await tx.done;
      return { type: 'store.saved', summary: summaryOf(renamed) };
    }
    case 'store.delete':
      await db.delete('conversations', command.id);
      return { type: 'store.deleted', id: command.id };
  }
}
