/** Snapshot selectors of the storedModels machine: the one place components read it through. */
import type { StoredModelsSnapshot } from './storedModelsMachine';

/** Cached models with their sizes, largest first. */
export const selectStoredModels = (s: StoredModelsSnapshot) => s.context.models;
export const selectStorageEstimate = (s: StoredModelsSnapshot) => s.context.estimate;
export const selectPersisted = (s: StoredModelsSnapshot) => s.context.persisted;
export const selectStoredModelsError = (s: StoredModelsSnapshot) => s.context.error;
/** Listing, deleting or asking for persistence: the buttons wait. */
export const selectStoredModelsBusy = (s: StoredModelsSnapshot) => !s.matches('shown');
export const selectLoadedModelId = (s: StoredModelsSnapshot) => s.context.loadedId;
