/**
 * What the Compare view needs, loaded with its first visit (never with the page): the evaluation
 * machine's IndexedDB store actor (src/composition.ts provides it), the store itself (the saved
 * list), and TanStack
 * Query options for the training service's runs, models, held-out split and data file (the
 * client's fetchers, keyed by the training key factory, so the view's hooks share one cache), and
 * the mutation that puts a saved comparison's scores in a run's model card.
 */
import { mutationOptions, queryOptions } from '@tanstack/react-query';
import type { evaluationMachine } from '../machines/evaluationMachine';
import {
  createEvaluationStore,
  createEvaluationStoreActor,
  type EvaluationStore,
} from './evaluation-store';
import { trainingKeys } from '../shared/training-keys';
import type { TrainingClient } from './training-client';
import type { RunEvaluation } from '../shared/run-evaluation';

export function runsQueryOptions(client: TrainingClient) {
  return queryOptions({
    queryKey: trainingKeys.runs(client.baseUrl),
    queryFn: ({ signal }) => client.fetchRuns(signal),
    retry: false,
  });
}

export function modelsQueryOptions(client: TrainingClient) {
  return queryOptions({
    queryKey: trainingKeys.models(client.baseUrl),
    queryFn: ({ signal }) => client.fetchModels(signal),
    retry: false,
  });
}

/**
 * GET /runs/{id}/split: a finished run's held-out entries. They never change, and a 404 (none
 * held out) or 422 (malformed split.json) is an answer, not a hiccup: not retried.
 */
export function splitQueryOptions(client: TrainingClient, runId: string) {
  return queryOptions({
    queryKey: trainingKeys.split(client.baseUrl, runId),
    queryFn: ({ signal }) => client.fetchSplit(runId, signal),
    retry: false,
    staleTime: Infinity,
  });
}

/** GET /runs/{id}/dataset: every entry of a run's data file. */
export function runDatasetQueryOptions(client: TrainingClient, runId: string) {
  return queryOptions({
    queryKey: trainingKeys.dataset(client.baseUrl, runId),
    queryFn: ({ signal }) => client.fetchRunDataset(runId, signal),
    retry: false,
    staleTime: Infinity,
  });
}

/**
 * PUT /runs/{id}/evaluation: a saved comparison's scores into the run's model card. Not retried:
 * the service's refusal (409 running, 404 no merged/, 400) is the answer the view shows.
 */
export function runEvaluationMutationOptions(client: TrainingClient) {
  return mutationOptions({
    mutationFn: ({ runId, evaluation }: { runId: string; evaluation: RunEvaluation }) =>
      client.saveRunEvaluation(runId, evaluation),
    retry: false,
  });
}

export function createCompareServices(
  client: TrainingClient,
  store: EvaluationStore = createEvaluationStore(),
) {
  return {
    /** The evaluation machine's `store` actor (the composition root provides it). */
    storeActor: createEvaluationStoreActor(store),
    store,
    trainingUrl: client.baseUrl,
    queries: {
      runs: () => runsQueryOptions(client),
      models: () => modelsQueryOptions(client),
      split: (runId: string) => splitQueryOptions(client, runId),
      dataset: (runId: string) => runDatasetQueryOptions(client, runId),
    },
    mutations: {
      runEvaluation: () => runEvaluationMutationOptions(client),
    },
  };
}

/** What the view gets: the above, with the evaluation machine's logic (store provided). */
export type CompareServices = Omit<ReturnType<typeof createCompareServices>, 'storeActor'> & {
  logic: typeof evaluationMachine;
};
