/**
 * The persistence actor: conversations in IndexedDB (conversation-db.ts, loaded on the actor's
 * start). Commands are queued and run one at a time, so saves land in the order they were sent;
 * every failure comes back as a typed `store.failed` value (quota, private mode, a blocked
 * upgrade), never as a thrown error.
 */
import { fromCallback } from 'xstate';
import type { StoreCommand, StoreError, StoreResult } from '../shared/conversations/store-protocol';
import { errorMessage } from '../shared/errors';
import type { Db } from './conversation-db';

/** Maps a DOMException (or anything thrown) to a message a person can act on. */
export function toStoreError(error: unknown): StoreError {
  const name = error instanceof Error || error instanceof DOMException ? error.name : '';
  const detail = errorMessage(error);
  if (name === 'QuotaExceededError')
    return {
      kind: 'quota',
      message:
        'Browser storage is full, so this conversation could not be saved. It stays on screen; free space (Stored models → Delete) or export it.',
    };
  if (name === 'BlockedError')
    return {
      kind: 'blocked',
      message:
        'Saved conversations are locked by another tab running an older version of this app. Close the other tabs and reload; this conversation stays on screen.',
    };
  if (name === 'VersionError')
    return {
      kind: 'blocked',
      message:
        'Saved conversations were written by a newer version of this app. Reload the page to get it; this conversation stays on screen.',
    };
  if (name === 'InvalidStateError' || name === 'SecurityError' || name === 'UnavailableError')
    return {
      kind: 'unavailable',
      message:
        'This browser does not allow saving here (private mode or storage disabled), so conversations will not survive a reload. What is on screen is kept.',
    };
  return { kind: 'failed', message: `Conversation storage failed: ${detail}` };
}

/**
 * The persistence actor. `open` is injectable so tests use fake-indexeddb (or a failing open);
 * by default it opens the app's database. The database module arrives as its own chunk when the
 * actor starts. Commands run strictly in order; a failed open (or a failed chunk load) fails
 * every command with the same typed error.
 */
export function createConversationStoreActor(open?: () => Promise<Db>) {
  return fromCallback<StoreCommand>(({ sendBack, receive }) => {
    const database = import('./conversation-db').then(async (db) => ({
      run: db.run,
      handle: await (open ?? db.openStore)(),
    }));
    let queue: Promise<unknown> = Promise.resolve();
    receive((command) => {
      queue = queue.then(async () => {
        try {
          const { run, handle } = await database;
          sendBack(await run(handle, command));
        } catch (error) {
          sendBack({
            type: 'store.failed',
            op: command.type,
            error: toStoreError(error),
          } satisfies StoreResult);
        }
      });
    });
    return () =>
      void database.then(
        ({ handle }) => handle.close(),
        () => undefined,
      );
  });
}
