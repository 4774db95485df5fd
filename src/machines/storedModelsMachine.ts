import {
  assign,
  fromPromise,
  sendTo,
  setup,
  type ActorRef,
  type ErrorActorEvent,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { StoredModel, StorageEstimate } from '../shared/storage';
import { errorMessage } from '../shared/errors';
import type { StorageRequest, StorageResponse } from '../shared/storage-protocol';

/** An actor that accepts storage requests (the worker actor; a recording actor in tests). */
export type StoragePort = ActorRef<Snapshot<unknown>, StorageRequest>;

export interface StoredModelsInput {
  worker: StoragePort;
}

export interface StoredModelsContext {
  worker: StoragePort;
  models: StoredModel[];
  estimate: StorageEstimate | null;
  /** Whether the browser keeps this site's data under storage pressure; null = unknown. */
  persisted: boolean | null;
  /** The model loaded in the worker: it cannot be deleted. */
  loadedId: string | null;
  error: string | null;
}

type WorkerEventOf<S extends StorageResponse['status']> = {
  type: `worker.${S}`;
  message: Extract<StorageResponse, { status: S }>;
};

export type StoredModelsEvent =
  | { type: 'storedModels.refresh' }
  | { type: 'storedModels.delete'; id: string }
  | { type: 'storedModels.persist' }
  | { type: 'storedModels.loaded'; id: string | null }
  | WorkerEventOf<'stored'>
  | WorkerEventOf<'deleted'>
  | WorkerEventOf<'storage-error'>;

export interface EstimateOutput extends StorageEstimate {
  persisted: boolean | null;
}

const estimatePlaceholder = fromPromise<EstimateOutput>(() => {
  throw new Error('storageEstimate actor not provided');
});
const persistPlaceholder = fromPromise<boolean>(() => {
  throw new Error('requestPersist actor not provided');
});

export const storedModelsMachine = setup({
  types: {
    context: {} as StoredModelsContext,
    events: {} as StoredModelsEvent,
    input: {} as StoredModelsInput,
  },
  actors: { storageEstimate: estimatePlaceholder, requestPersist: persistPlaceholder },
  guards: {
    isLoadedModel: ({ context }, id: string) => id === context.loadedId,
    isListError: (_, op: string) => op === 'list',
    isDeleteError: (_, op: string) => op === 'delete',
  },
  actions: {
    postList: sendTo(({ context }) => context.worker, { type: 'storage.list' }),
    postDelete: sendTo(
      ({ context }) => context.worker,
      (_, id: string) => ({ type: 'storage.delete' as const, id }),
    ),
    storeModels: assign({ models: (_, models: StoredModel[]) => models }),
    storeEstimate: assign((_, output: EstimateOutput) => ({
      estimate: { usage: output.usage, quota: output.quota },
      persisted: output.persisted,
    })),
    storePersisted: assign({ persisted: (_, persisted: boolean) => persisted }),
    storeWorkerError: assign({ error: (_, error: string) => error }),
    storeError: assign({ error: (_, error: unknown) => errorMessage(error) }),
    refuseLoaded: assign({
      error: (_, id: string) => `${id} is the loaded model: load another model before deleting it.`,
    }),
    clearError: assign({ error: null }),
    setLoaded: assign({ loadedId: (_, id: StoredModelsContext['loadedId']) => id }),
  },
}).createMachine({
  id: 'storedModels',
  context: ({ input }) => ({
    worker: input.worker,
    models: [],
    estimate: null,
    persisted: null,
    loadedId: null,
    error: null,
  }),
  initial: 'idle',
  on: {
    'storedModels.loaded': { actions: { type: 'setLoaded', params: ({ event }) => event.id } },
  },
  states: {
    /** Nothing asked yet (the dialog has not been opened). */
    idle: {
      on: { 'storedModels.refresh': 'listing' },
    },
    /** Asking the worker for the cached models and the browser for the storage estimate. */
    listing: {
      type: 'parallel',
      entry: ['clearError', 'postList'],
      states: {
        models: {
          initial: 'waiting',
          states: {
            waiting: {
              on: {
                'worker.stored': {
                  target: 'done',
                  actions: { type: 'storeModels', params: ({ event }) => event.message.models },
                },
                'worker.storage-error': {
                  guard: { type: 'isListError', params: ({ event }) => event.message.op },
                  target: 'done',
                  actions: {
                    type: 'storeWorkerError',
                    params: ({ event }) => event.message.data,
                  },
                },
              },
            },
            done: { type: 'final' },
          },
        },
        estimate: {
          initial: 'waiting',
          states: {
            waiting: {
              invoke: {
                src: 'storageEstimate',
                onDone: {
                  target: 'done',
                  actions: { type: 'storeEstimate', params: ({ event }) => event.output },
                },
                onError: {
                  target: 'done',
                  actions: {
                    type: 'storeError',
                    params: ({ event }: { event: ErrorActorEvent }) => event.error,
                  },
                },
              },
            },
            done: { type: 'final' },
          },
        },
      },
      onDone: 'shown',
    },
    shown: {
      on: {
        'storedModels.refresh': 'listing',
        'storedModels.delete': [
          {
            guard: { type: 'isLoadedModel', params: ({ event }) => event.id },
            actions: { type: 'refuseLoaded', params: ({ event }) => event.id },
          },
          {
            target: 'deleting',
            actions: ['clearError', { type: 'postDelete', params: ({ event }) => event.id }],
          },
        ],
        'storedModels.persist': 'persisting',
      },
    },
    deleting: {
      on: {
        'worker.deleted': 'listing',
        'worker.storage-error': {
          guard: { type: 'isDeleteError', params: ({ event }) => event.message.op },
          target: 'shown',
          actions: { type: 'storeWorkerError', params: ({ event }) => event.message.data },
        },
      },
    },
    persisting: {
      invoke: {
        src: 'requestPersist',
        onDone: {
          target: 'shown',
          actions: { type: 'storePersisted', params: ({ event }) => event.output },
        },
        onError: {
          target: 'shown',
          actions: {
            type: 'storeError',
            params: ({ event }: { event: ErrorActorEvent }) => event.error,
          },
        },
      },
    },
  },
});

export type StoredModelsSnapshot = SnapshotFrom<typeof storedModelsMachine>;
