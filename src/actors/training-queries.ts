/**
 * TanStack Query options for the training service: query keys scoped by service URL, and the
 * query/mutation options the training actors (./training-client.ts) and hooks share. Loaded with
 * the first run (polling, start, cancel) or the first dataset sent, never with the page.
 */
import { MutationObserver, mutationOptions, queryOptions } from '@tanstack/react-query';
import type { ApiError } from '../shared/api-error';
import {
  LOG_TAIL,
  type DatasetEntry,
  type DatasetResponse,
  type RunInfo,
  type TrainRequest,
  type TrainResponse,
} from '../shared/training-api';
import { trainingKeys } from '../shared/training-keys';
import type { TrainingClient } from './training-client';

export { MutationObserver };

export { trainingKeys };

/** GET /logs/{id}?tail=N. Never retried by Query: the poller's next tick is the retry. */
export function logsQueryOptions(client: TrainingClient, runId: string, tail = LOG_TAIL) {
  return queryOptions({
    queryKey: trainingKeys.logs(client.baseUrl, runId, tail),
    queryFn: ({ signal }) => client.fetchLogs(runId, tail, signal),
    retry: false,
    staleTime: 0,
  });
}

export function runQueryOptions(client: TrainingClient, runId: string) {
  return queryOptions({
    queryKey: trainingKeys.run(client.baseUrl, runId),
    queryFn: ({ signal }) => client.fetchRun(runId, signal),
    retry: false,
    staleTime: 0,
  });
}

export function metricsQueryOptions(
  client: TrainingClient,
  runId: string,
  after: number,
  evalAfter: number,
) {
  return queryOptions({
    queryKey: trainingKeys.metrics(client.baseUrl, runId, after, evalAfter),
    queryFn: ({ signal }) => client.fetchMetrics(runId, after, evalAfter, signal),
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });
}

/** POST /train. A start is never retried: a second POST could start a second run. */
export function startTrainingMutationOptions(client: TrainingClient) {
  return mutationOptions<TrainResponse, ApiError, TrainRequest>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'start'],
    mutationFn: (request) => client.startTraining(request),
    retry: false,
  });
}

/**
 * POST /runs/{id}/cancel. The run it returns goes to the machine (no cache entry is written: the
 * poller's next fetch of the run is fresh anyway, and no view reads that key).
 */
export function cancelRunMutationOptions(client: TrainingClient) {
  return mutationOptions<RunInfo, ApiError, string>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'cancel'],
    mutationFn: (runId) => client.cancelRun(runId),
    retry: false,
  });
}

/** POST /runs/{id}/resume. Never retried: a second POST would answer 409 (the run is active). */
export function resumeRunMutationOptions(client: TrainingClient) {
  return mutationOptions<RunInfo, ApiError, string>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'resume'],
    mutationFn: (runId) => client.resumeRun(runId),
    retry: false,
  });
}

/** PUT /datasets/{name}: stores a 'Format Input' dataset on the service, returns its path. */
export function putDatasetMutationOptions(client: TrainingClient) {
  return mutationOptions<DatasetResponse, ApiError, { name: string; entries: DatasetEntry[] }>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'dataset'],
    mutationFn: ({ name, entries }) => client.putDataset(name, entries),
    retry: false,
  });
}
