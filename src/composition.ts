/**
 * The composition root: the only module that wires real implementations (the Web Worker, the
 * WebGPU probe, the hosted chat completion, the training service client, the local generator)
 * into the machines. src/main.tsx calls it; tests build the same objects, with fakes provided the
 * same way (`machine.provide`) or with shorter timings.
 */
import type { QueryClient } from '@tanstack/react-query';
import { appMachine } from './machines/appMachine';
import { createLlmWorkerActor } from './actors/llm-worker-actor';
import { probeWebGPUActor } from './actors/webgpu-probe';
import { createConversationStoreActor } from './actors/conversation-store';
import { requestPersistActor, storageEstimateActor } from './actors/storage-manager';
import { storedModelsMachine } from './machines/storedModelsMachine';
import type { HostedChatOptions } from './actors/hosted-chat';
import type { TrainingClient } from './actors/training-client';
import type * as TrainingClientModule from './actors/training-client';
import type * as TrainingMachineModule from './machines/trainingMachine';
import type { Services } from './ui/services';
import type { CompareServices } from './actors/compare-services';
import { resolveTrainingUrl } from './runtime-config';

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
        const worker = new Worker(new URL('./worker/llm.worker.ts', import.meta.url), {
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

type TrainingModules = {
  client: typeof TrainingClientModule;
  machine: typeof TrainingMachineModule;
};
/** The training modules once loaded (they are the same for every `createServices`). */
let trainingModules: TrainingModules | undefined;
async function loadTrainingModules(): Promise<TrainingModules> {
  if (!trainingModules) {
    const [client, machine] = await Promise.all([
      import('./actors/training-client'),
      import('./machines/trainingMachine'),
    ]);
    trainingModules = { client, machine };
  }
  return trainingModules;
}

/** A promise already settled the way React's `use` reads it (`status`, `value`): no suspending. */
function settled<T>(value: T): Promise<T> {
  return Object.assign(Promise.resolve(value), { status: 'fulfilled', value });
}

/** The panels' services (see src/ui/services.ts). */
export function createServices(options: ServicesOptions = {}): Services {
  const { queryClient } = options;
  const loadQueryClient = queryClient
    ? () => Promise.resolve(queryClient)
    : () => import('./ui/query-client').then((m) => m.queryClient);
  const trainingUrl = (options.trainingUrl ?? resolveTrainingUrl()).replace(/\/+$/, '');
  // The training client (with its zod schemas) and the training machine load with their first
  // user (the training panel, right after the first paint), not with the page.
  let created: TrainingClient | undefined;
  const clientOf = (modules: TrainingModules) =>
    (created ??= modules.client.createTrainingClient({ baseUrl: trainingUrl }));
  const client = async () => clientOf(await loadTrainingModules());
  const trainingLogicOf = (modules: TrainingModules) =>
    modules.machine.trainingMachine.provide({
      actors: modules.client.createTrainingActors(clientOf(modules)),
      ...(options.pollInterval !== undefined
        ? { delays: { pollInterval: options.pollInterval } }
        : {}),
    });
  let trainingLogic: ReturnType<Services['loadTrainingLogic']> | undefined;
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
    // One promise per page; once the modules are in, one React's `use` reads without suspending.
    loadTrainingLogic: () =>
      (trainingLogic ??= trainingModules
        ? settled(trainingLogicOf(trainingModules))
        : loadTrainingModules().then(trainingLogicOf)),
    trainingUrl,
    trainingLog: async (runId, signal) => {
      const [loaded, { MAX_LOG_LINES }] = await Promise.all([
        client(),
        import('./shared/training-api'),
      ]);
      return (await loaded.fetchLogs(runId, MAX_LOG_LINES, signal)).lines;
    },
    exportsClient: client,
    trainingPlan: async (request, signal) => (await client()).planTraining(request, signal),
    trainer: {
      info: async (signal) => (await client()).fetchTrainer(signal),
      setup: async (signal) => (await client()).fetchTrainerSetup(signal),
      startSetup: async () => (await client()).startTrainerSetup(),
    },
    hubCache: {
      list: async (signal) => (await client()).fetchHubCache(signal),
      remove: async (modelId) => (await client()).removeCachedModel(modelId),
    },
    storeDataset: async (entries, name) => (await (await client()).putDataset(name, entries)).path,
    // Loaded with the first 'Format Input' on the local model.
    localGenerator: (app) => async (prompt, signal, onText) => {
      const { createLocalGenerator } = await import('./actors/local-generator');
      return createLocalGenerator(app)(prompt, signal, onText);
    },
    // Loaded with the first visit to Compare, never with the page.
    loadCompare: () =>
      (compare ??= Promise.all([
        import('./machines/evaluationMachine'),
        import('./actors/compare-services'),
        client(),
      ]).then(([{ evaluationMachine }, m, loaded]) => {
        const { storeActor, ...services } = m.createCompareServices(loaded);
        return { ...services, logic: evaluationMachine.provide({ actors: { store: storeActor } }) };
      })),
  };
}
