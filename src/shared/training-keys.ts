/**
 * The one TanStack Query key factory for the training service, shared by the actors' query
 * options (src/actors/training-queries.ts) and the views' hooks: keys are scoped by service URL,
 * so two services never share cache entries.
 */
export const trainingKeys = {
  all: (baseUrl: string) => ['training', baseUrl] as const,
  runs: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'runs'] as const,
  run: (baseUrl: string, runId: string) => [...trainingKeys.all(baseUrl), 'run', runId] as const,
  logs: (baseUrl: string, runId: string, tail: number) =>
    [...trainingKeys.all(baseUrl), 'logs', runId, { tail }] as const,
  /** A whole run's log as lines (the Runs list's Log), not the polled tail of `logs`. */
  runLog: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'run-log', runId] as const,
  metrics: (baseUrl: string, runId: string, after: number, evalAfter: number) =>
    [...trainingKeys.all(baseUrl), 'metrics', runId, { after, evalAfter }] as const,
  models: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'models'] as const,
  split: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'split', runId] as const,
  dataset: (baseUrl: string, runId: string) =>
    [...trainingKeys.all(baseUrl), 'dataset', runId] as const,
  trainer: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'trainer'] as const,
  trainerSetup: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'trainer', 'setup'] as const,
};
