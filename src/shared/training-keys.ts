/**
 * The one TanStack Query key factory for the training service's reads that views cache (Compare's
 * runs, models, split and dataset, a run's whole log, the trainer's set-up): keys are scoped by service URL, so two services never share
 * cache entries.
 */
export const trainingKeys = {
  all: (baseUrl: string) => ['training', baseUrl] as const,
  runs: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'runs'] as const,
  /** A whole run's log as lines (the Runs list's Log). */
  runLog: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'run-log', runId] as const,
  models: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'models'] as const,
  split: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'split', runId] as const,
  dataset: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'dataset', runId] as const,
  /** A finished run's exports (GET /runs/{id}/exports). */
  exports: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'exports', runId] as const,
  trainerSetup: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'trainer', 'setup'] as const,
  /** GET /hub-cache: the downloaded base models (the panel's section, the Base model field). */
  hubCache: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'hub-cache'] as const,
};
