/**
 * The composition root: the only module that wires real implementations (the Web Worker, the
 * WebGPU probe, the hosted chat completion, the training service client, the local generator)
 * into the machines. src/main.tsx calls it; tests build the same objects, with fakes provided the
 * same way (`machine.provide`) or with shorter timings.
 */
import type { QueryClient } from '@tanstack/react-query';
import { appMachine } from './machines/appMachine';
import { trainingMachine } from './machines/trainingMachine';
import { createLlmWorkerActor } from './actors/llm-worker-actor';
import { probeWebGPUActor } from './actors/webgpu-probe';
import { createConversationStoreActor } from './actors/conversation-store';
import { requestPersistActor, storageEstimateActor } from './actors/storage-manager';
import { storedModelsMachine } from './machines/storedModelsMachine';
import type { HostedChatOptions } from './actors/hosted-chat';
import { createLocalGenerator } from './actors/local-generator';
import {
  createTrainingActors,
  createTrainingClient,
  storeDatasetOnService,
} from './actors/training-client';
import type { Services } from './ui/services';
import type { CompareServices } from './actors/compare-services';
import { MAX_LOG_LINES } from './shared/training-api';

/**
 * The root actor's logic: the Web Worker and the WebGPU probe provided. `debug` (`?debug`, tests
 * only) names the worker `llm-debug` and exposes it as `window.__llmWorker`, so the e2e tests can
 * terminate it mid-reply.
 */
export function createAppLogic({ debug = false }: { debug?: boolean } = {}) {
  return appMachine.provide({
    actors: {
      probeWebGPU: probeWebGPUActor,
      // Conversations in IndexedDB (idb); stored models' storage estimate and persist().
      conversationStore: createConversationStoreActor(),
      storedModels: storedModelsMachine.provide({
        actors: { storageEstimate: storageEstimateActor, requestPersist: requestPersistActor },
      }),
      llmWorker: createLlmWorkerActor(() => {
        const worker = new Worker(new URL('./actors/llm.worker.ts', import.meta.url), {
          type: 'module',
          name: debug ? 'llm-debug' : 'llm',
        });
        if (debug) Object.assign(window, { __llmWorker: worker });
        return worker;
      }),
    },
  });
}

export interface ServicesOptions {
  /**
   * The TanStack Query client (tests pass their own). Default: the app's one client
   * (src/ui/query-client.tsx), loaded with the first code that needs it, not with the page.
   */
  queryClient?: QueryClient;
  /** The training service (default from `?trainingUrl=` / VITE_TRAINING_URL / :8000). */
  trainingUrl?: string;
  /** Hosted-call tuning (tests shorten timeouts and back-off). */
  hosted?: HostedChatOptions;
  /** Training poll interval in ms (tests); default the machine's 2000. */
  pollInterval?: number;
}

/** The panels' services (see src/ui/services.ts). */
export function createServices(options: ServicesOptions = {}): Services {
  const { queryClient } = options;
  const loadQueryClient = queryClient
    ? () => Promise.resolve(queryClient)
    : () => import('./ui/query-client').then((m) => m.queryClient);
  const client = createTrainingClient(
    options.trainingUrl !== undefined ? { baseUrl: options.trainingUrl } : {},
  );
  let compare: Promise<CompareServices> | undefined;
  return {
    // The dataset machine and its chunk actor load with the first 'Format Input'.
    loadDatasetLogic: async (sources) => {
      const [{ datasetMachine }, { createGenerateChunk }] = await Promise.all([
        import('./machines/datasetMachine'),
        import('./actors/dataset-chunk'),
      ]);
      return datasetMachine.provide({
        actors: { generateChunk: createGenerateChunk(loadQueryClient, sources, options.hosted) },
      });
    },
    trainingLogic: () =>
      trainingMachine.provide({
        actors: createTrainingActors(loadQueryClient, client),
        ...(options.pollInterval !== undefined
          ? { delays: { pollInterval: options.pollInterval } }
          : {}),
      }),
    trainingUrl: client.baseUrl,
    trainingLog: async (runId, signal) =>
      (await client.fetchLogs(runId, MAX_LOG_LINES, signal)).lines,
    trainer: {
      info: (signal) => client.fetchTrainer(signal),
      setup: (signal) => client.fetchTrainerSetup(signal),
      startSetup: () => client.startTrainerSetup(),
    },
    storeDataset: (entries, name) => storeDatasetOnService(loadQueryClient, client, entries, name),
    localGenerator: createLocalGenerator,
    // Loaded with the first visit to Compare, never with the page.
    loadCompare: () =>
      (compare ??= Promise.all([
        import('./machines/evaluationMachine'),
        import('./actors/compare-services'),
      ]).then(([{ evaluationMachine }, m]) => {
        const { storeActor, ...services } = m.createCompareServices(client);
        return { ...services, logic: evaluationMachine.provide({ actors: { store: storeActor } }) };
      })),
  };
}
