/**
 * The local training service from the browser: fetchers validated by the shared schemas, the
 * TanStack Query key factory and `queryOptions`/mutation helpers (for hooks), and the XState
 * actors of the training machine built on the same helpers (`queryClient.fetchQuery`,
 * `MutationObserver`), so hooks and actors share one code path and one cache.
 */
import {
  MutationObserver,
  mutationOptions,
  queryOptions,
  type QueryClient,
} from '@tanstack/react-query';
import { fromPromise } from 'xstate';
import type * as z from 'zod/mini';
import { isLoopbackUrl } from '../runtime-config';
import {
  DEFAULT_TRAINING_URL,
  DatasetResponseSchema,
  LOG_TAIL,
  LogsResponseSchema,
  RunInfoSchema,
  RunListSchema,
  TrainResponseSchema,
  parseOrThrow,
  type DatasetEntry,
  type DatasetResponse,
  type LogsResponse,
  type RunInfo,
  type RunList,
  type TrainRequest,
  type TrainResponse,
} from '../shared/training-api';
import type {
  CancelRunInput,
  PollRunInput,
  PollRunOutput,
  StartTrainingInput,
  StartTrainingOutput,
} from '../machines/trainingMachine';

/** Why a call failed: the service answered non-OK (`http`), or could not be reached. */
export type TrainingErrorKind = 'http' | 'network' | 'invalid-response';

/** A failed call; `message` is what the user sees (for `http`: the server's own text). */
export class TrainingHttpError extends Error {
  constructor(
    readonly kind: TrainingErrorKind,
    message: string,
    /** HTTP status, 0 when the service was not reached. */
    readonly status = 0,
  ) {
    super(message);
    this.name = 'TrainingHttpError';
  }
}

/**
 * The service's base URL: `?trainingUrl=` when it is a loopback URL (tests, another port), else
 * `VITE_TRAINING_URL`, else http://127.0.0.1:8000.
 */
export function resolveTrainingUrl(
  search: string = globalThis.location?.search ?? '',
  envUrl: string | undefined = import.meta.env.VITE_TRAINING_URL as string | undefined,
): string {
  const param = new URLSearchParams(search).get('trainingUrl');
  const chosen = param && isLoopbackUrl(param) ? param : envUrl || DEFAULT_TRAINING_URL;
  return chosen.replace(/\/+$/, '');
}

export interface TrainingClientOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** The service's text for a non-OK answer: its `error` field, or the raw text. */
function serverText(text: string, response: Response): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    // not JSON: the text as sent
  }
  return text.trim() || `The training service answered ${response.status} ${response.statusText}`;
}

export interface TrainingClient {
  baseUrl: string;
  startTraining(request: TrainRequest, signal?: AbortSignal): Promise<TrainResponse>;
  fetchLogs(runId: string, tail?: number, signal?: AbortSignal): Promise<LogsResponse>;
  fetchRun(runId: string, signal?: AbortSignal): Promise<RunInfo>;
  fetchRuns(signal?: AbortSignal): Promise<RunList>;
  cancelRun(runId: string, signal?: AbortSignal): Promise<RunInfo>;
  putDataset(name: string, entries: DatasetEntry[], signal?: AbortSignal): Promise<DatasetResponse>;
}

export function createTrainingClient(options: TrainingClientOptions = {}): TrainingClient {
  const baseUrl = (options.baseUrl ?? resolveTrainingUrl()).replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function call<T>(
    schema: z.ZodMiniType<T>,
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method,
        signal,
        headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new TrainingHttpError(
        'network',
        `The training service at ${baseUrl} is unreachable (${reason}). Start it with \`npm run service\`.`,
      );
    }
    const text = await response.text();
    if (!response.ok)
      throw new TrainingHttpError('http', serverText(text, response), response.status);
    try {
      return parseOrThrow(schema, JSON.parse(text), 'response from the training service');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TrainingHttpError('invalid-response', reason, response.status);
    }
  }

  const id = (runId: string) => encodeURIComponent(runId);
  return {
    baseUrl,
    startTraining: (request, signal) =>
      call(TrainResponseSchema, 'POST', '/train', request, signal),
    fetchLogs: (runId, tail = LOG_TAIL, signal) =>
      call(LogsResponseSchema, 'GET', `/logs/${id(runId)}?tail=${tail}`, undefined, signal),
    fetchRun: (runId, signal) =>
      call(RunInfoSchema, 'GET', `/runs/${id(runId)}`, undefined, signal),
    fetchRuns: (signal) => call(RunListSchema, 'GET', '/runs', undefined, signal),
    // State changes carry a JSON body so the service's JSON-only rule holds for cancel too.
    cancelRun: (runId, signal) =>
      call(RunInfoSchema, 'POST', `/runs/${id(runId)}/cancel`, {}, signal),
    putDataset: (name, entries, signal) =>
      call(DatasetResponseSchema, 'PUT', `/datasets/${encodeURIComponent(name)}`, entries, signal),
  };
}

/** Query keys, scoped by service URL so two services never share cache entries. */
export const trainingKeys = {
  all: (baseUrl: string) => ['training', baseUrl] as const,
  runs: (baseUrl: string) => [...trainingKeys.all(baseUrl), 'runs'] as const,
  run: (baseUrl: string, runId: string) => [...trainingKeys.all(baseUrl), 'run', runId] as const,
  logs: (baseUrl: string, runId: string, tail: number) =>
    [...trainingKeys.all(baseUrl), 'logs', runId, { tail }] as const,
};

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

/** POST /train. A start is never retried: a second POST could start a second run. */
export function startTrainingMutationOptions(client: TrainingClient) {
  return mutationOptions<TrainResponse, TrainingHttpError, TrainRequest>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'start'],
    mutationFn: (request) => client.startTraining(request),
    retry: false,
  });
}

export function cancelRunMutationOptions(client: TrainingClient, queryClient?: QueryClient) {
  return mutationOptions<RunInfo, TrainingHttpError, string>({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'cancel'],
    mutationFn: (runId) => client.cancelRun(runId),
    retry: false,
    onSuccess: (run) => queryClient?.setQueryData(trainingKeys.run(client.baseUrl, run.id), run),
  });
}

/** PUT /datasets/{name}: stores a 'Format Input' dataset on the service, returns its path. */
export function putDatasetMutationOptions(client: TrainingClient) {
  return mutationOptions<
    DatasetResponse,
    TrainingHttpError,
    { name: string; entries: DatasetEntry[] }
  >({
    mutationKey: [...trainingKeys.all(client.baseUrl), 'dataset'],
    mutationFn: ({ name, entries }) => client.putDataset(name, entries),
    retry: false,
  });
}

/**
 * The actors `trainingMachine` names, for `trainingMachine.provide({ actors })`. They go through
 * `queryClient` (fetchQuery / MutationObserver) so the cache hooks read is the one actors fill.
 */
export function createTrainingActors(
  queryClient: QueryClient,
  client: TrainingClient = createTrainingClient(),
) {
  return {
    startTraining: fromPromise<StartTrainingOutput, StartTrainingInput>(async ({ input }) => {
      const observer = new MutationObserver(queryClient, startTrainingMutationOptions(client));
      const { run_id } = await observer.mutate(input.request);
      return { runId: run_id };
    }),
    pollRun: fromPromise<PollRunOutput, PollRunInput>(async ({ input }) => {
      const [logs, run] = await Promise.all([
        queryClient.fetchQuery(logsQueryOptions(client, input.runId, input.tail)),
        queryClient.fetchQuery(runQueryOptions(client, input.runId)),
      ]);
      return { lines: logs.lines, run };
    }),
    getRun: fromPromise<RunInfo, { runId: string }>(({ input }) =>
      queryClient.fetchQuery(runQueryOptions(client, input.runId)),
    ),
    cancelRun: fromPromise<RunInfo, CancelRunInput>(({ input }) =>
      new MutationObserver(queryClient, cancelRunMutationOptions(client, queryClient)).mutate(
        input.runId,
      ),
    ),
  };
}
