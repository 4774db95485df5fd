/**
 * What the panels need from the outside world, provided by the composition root (src/composition.ts)
 * through `ServicesContext`; tests provide the same object, with fakes where they want them. The UI
 * imports only types from src/actors.
 */
import { createContext, useContext } from 'react';
import type { ChunkSources, GenerateLocal } from '../actors/dataset-chunk';
import type { AppActorRef } from '../machines/appMachine';
import type { datasetMachine } from '../machines/datasetMachine';
import type { trainingMachine } from '../machines/trainingMachine';
import type { CompareServices } from '../actors/compare-services';
import type { TrainingClient } from '../actors/training-client';
import type {
  HubCache,
  TrainingEntry,
  PlanResponse,
  TrainRequest,
  TrainerInfo,
  TrainerSetup,
} from '../shared/training-api';

export type { ChunkSources, GenerateLocal };

export interface Services {
  /**
   * The dataset machine with `generateChunk` provided, loaded on the first 'Format Input';
   * `sources` is read at each request.
   */
  loadDatasetLogic: (sources: () => ChunkSources) => Promise<typeof datasetMachine>;
  /**
   * The training machine with its HTTP actors provided, loaded with the training panel (not with
   * the page); the same promise every call (the panel reads it with React's `use`).
   */
  loadTrainingLogic: () => Promise<typeof trainingMachine>;
  /** The training service's base URL (shown when it does not answer). */
  trainingUrl: string;
  /** A run's log (GET /logs/{id}?tail=1000), for the Runs list. */
  trainingLog: (runId: string, signal?: AbortSignal) => Promise<string[]>;
  /**
   * The training client's exports calls, loaded with it: GET /runs/{id}/exports (an ended run's
   * archives, GGUF files and Modelfile) and POST /runs/{id}/exports (GGUF written after the run).
   */
  exportsClient: () => Promise<Pick<TrainingClient, 'fetchRunExports' | 'requestRunExport'>>;
  /** POST /train/plan: what a run with this request would do, before the start. */
  trainingPlan: (request: TrainRequest, signal?: AbortSignal) => Promise<PlanResponse>;
  /** The trainer's environment on the service: what it has, and its set-up. */
  trainer: {
    info: (signal?: AbortSignal) => Promise<TrainerInfo>;
    setup: (signal?: AbortSignal) => Promise<TrainerSetup>;
    startSetup: () => Promise<TrainerSetup>;
  };
  /** The service's Hub cache of downloaded base models: list, and remove one. */
  hubCache: {
    list: (signal?: AbortSignal) => Promise<HubCache>;
    remove: (modelId: string) => Promise<HubCache>;
  };
  /** PUT /datasets/{name}: stores a 'Format Input' dataset, resolves with its path on the service. */
  storeDataset: (entries: TrainingEntry[], name: string) => Promise<string>;
  /**
   * Compare (#/compare): the evaluation machine with its IndexedDB store and the training
   * service's queries, loaded on the first visit; the same promise every call.
   */
  loadCompare: () => Promise<CompareServices>;
  /** 'Format Input' on the loaded in-browser model, through the app actor. */
  localGenerator: (app: AppActorRef) => GenerateLocal;
}

export const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('No ServicesContext');
  return services;
}
