import { fromPromise } from 'xstate';
import type { EstimateOutput } from '../machines/storedModelsMachine';

/** Storage used and available for this site, and whether it is kept under pressure. */
export const storageEstimateActor = fromPromise<EstimateOutput>(async () => {
  const storage: StorageManager | undefined = navigator.storage;
  if (!storage) return { usage: null, quota: null, persisted: null };
  const [estimate, persisted] = await Promise.all([
    storage.estimate(),
    storage.persisted().catch(() => null),
  ]);
  return { usage: estimate.usage ?? null, quota: estimate.quota ?? null, persisted };
});

/** Asks the browser to keep this site's data (models, conversations) when storage runs low. */
export const requestPersistActor = fromPromise<boolean>(async () => {
  const storage: StorageManager | undefined = navigator.storage;
  if (!storage?.persist) throw new Error('This browser cannot keep stored data on request.');
  return storage.persist();
});
