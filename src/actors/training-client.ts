/**
 * The local training service from the browser: fetchers validated by the shared schemas (the
 * views' hooks wrap them in TanStack Query where a view reads them, keyed by
 * src/shared/training-keys.ts) and the XState actors of the training machine, which call them
 * directly. A failed call is an
 * `ApiError` (src/shared/api-error.ts): `network` when the service was not reached,
 * `invalid-response` when its answer did not match the schema, else its status's kind, with the
 * server's own text as the message.
 */
import { fromPromise } from 'xstate';
import type * as z from 'zod/mini';
import { resolveTrainingUrl } from '../runtime-config';
import { ApiError, createApiError, type HttpFailure } from '../shared/api-error';
import { errorMessage } from '../shared/errors';
import {
  DatasetResponseSchema,
  HubCacheSchema,
  LOG_TAIL,
  LogsResponseSchema,
  MetricsResponseSchema,
  ModelListSchema,
  RunDatasetSchema,
  RunInfoSchema,
  RunListSchema,
  RunEvaluationResultSchema,
  RunExportsSchema,
  RunSplitSchema,
  TrainResponseSchema,
  PlanResponseSchema,
  TrainerInfoSchema,
  TrainerSetupSchema,
  parseOrThrow,
  type TrainingEntry,
  type DatasetResponse,
  type HubCache,
  type LogsResponse,
  type MetricsResponse,
  type ModelList,
  type RunDataset,
  type RunInfo,
  type RunList,
  type ExportRequest,
  type RunEvaluationResult,
  type RunExports,
  type RunSplit,
  type TrainRequest,
  type TrainResponse,
  type PlanResponse,
  type TrainerInfo,
  type TrainerSetup,
} from '../shared/training-api';
import type { RunEvaluation } from '../shared/run-evaluation';
import type {
  CancelRunInput,
  Catalog,
  PollRunInput,
  PollRunOutput,
  StartTrainingInput,
  StartTrainingOutput,
} from '../machines/trainingMachine';

export { resolveTrainingUrl };

export interface TrainingClientOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** The service's text for a non-OK answer: its `error` field, or the raw text. */
function serverText(failure: HttpFailure): string {
  return (
    failure.detail || `The training service answered ${failure.status} ${failure.statusText}`.trim()
  );
}

export interface TrainingClient {
  baseUrl: string;
  startTraining(request: TrainRequest, signal?: AbortSignal): Promise<TrainResponse>;
  /** POST /train/plan: what the run would do (entries, steps, memory), nothing started. */
  planTraining(request: TrainRequest, signal?: AbortSignal): Promise<PlanResponse>;
  fetchLogs(runId: string, tail?: number, signal?: AbortSignal): Promise<LogsResponse>;
  fetchRun(runId: string, signal?: AbortSignal): Promise<RunInfo>;
  fetchRuns(signal?: AbortSignal): Promise<RunList>;
  /** GET /runs/{id}/metrics?after=SEQ: loss points newer than `after`. */
  /** GET /runs/{id}/metrics: loss points after `after`, held-out points after `evalAfter`. */
  fetchMetrics(
    runId: string,
    after: number,
    evalAfter: number,
    signal?: AbortSignal,
  ): Promise<MetricsResponse>;
  /** GET /models: finished runs with a browser-ready model. */
  fetchModels(signal?: AbortSignal): Promise<ModelList>;
  cancelRun(runId: string, signal?: AbortSignal): Promise<RunInfo>;
  /** POST /runs/{id}/resume: the run again running from its newest checkpoint. */
  resumeRun(runId: string, signal?: AbortSignal): Promise<RunInfo>;
  /** GET /runs/{id}/split: the entries held out of training (404: none; 422: malformed). */
  fetchSplit(runId: string, signal?: AbortSignal): Promise<RunSplit>;
  /** GET /runs/{id}/dataset: every entry of the run's data file. */
  fetchRunDataset(runId: string, signal?: AbortSignal): Promise<RunDataset>;
  /** GET /runs/{id}/exports: the GGUF files and Ollama Modelfile of the run's output folder. */
  fetchRunExports(runId: string, signal?: AbortSignal): Promise<RunExports>;
  /** POST /runs/{id}/exports: GGUF written from the run's merged model (202, "writing"). */
  requestRunExport(runId: string, request: ExportRequest): Promise<RunExports>;
  /** PUT /runs/{id}/evaluation: Compare's scores into the run's model card. */
  saveRunEvaluation(runId: string, evaluation: RunEvaluation): Promise<RunEvaluationResult>;
  putDataset(
    name: string,
    entries: TrainingEntry[],
    signal?: AbortSignal,
  ): Promise<DatasetResponse>;
  /** GET /trainer: interpreter, packages (or missing), device, set-up state. */
  fetchTrainer(signal?: AbortSignal): Promise<TrainerInfo>;
  /** GET /trainer/setup: the set-up's state and its output so far. */
  fetchTrainerSetup(signal?: AbortSignal): Promise<TrainerSetup>;
  /** POST /trainer/setup: starts the fixed set-up (202). */
  startTrainerSetup(signal?: AbortSignal): Promise<TrainerSetup>;
  /** GET /hub-cache: the downloaded base models, their folder and sizes. */
  fetchHubCache(signal?: AbortSignal): Promise<HubCache>;
  /** DELETE /hub-cache/models/{org}/{name}: removes one (409 while a run uses it). */
  removeCachedModel(modelId: string, signal?: AbortSignal): Promise<HubCache>;
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
      throw new ApiError(
        'network',
        `The training service at ${baseUrl} is unreachable (${errorMessage(error)}). Start it with \`npm run service\`.`,
        { cause: error },
      );
    }
    if (!response.ok)
      throw await createApiError(response, {
        message: serverText,
        maxDetail: 20_000,
        keepWhitespace: true,
      });
    const text = await response.text();
    try {
      return parseOrThrow(schema, JSON.parse(text), 'response from the training service');
    } catch (error) {
      throw new ApiError('invalid-response', errorMessage(error), {
        status: response.status,
        cause: error,
      });
    }
  }

  const id = (runId: string) => encodeURIComponent(runId);
  return {
    baseUrl,
    startTraining: (request, signal) =>
      call(TrainResponseSchema, 'POST', '/train', request, signal),
    planTraining: (request, signal) =>
      call(PlanResponseSchema, 'POST', '/train/plan', request, signal),
    fetchLogs: (runId, tail = LOG_TAIL, signal) =>
      call(LogsResponseSchema, 'GET', `/logs/${id(runId)}?tail=${tail}`, undefined, signal),
    fetchRun: (runId, signal) =>
      call(RunInfoSchema, 'GET', `/runs/${id(runId)}`, undefined, signal),
    fetchRuns: (signal) => call(RunListSchema, 'GET', '/runs', undefined, signal),
    fetchMetrics: (runId, after, evalAfter, signal) =>
      call(
        MetricsResponseSchema,
        'GET',
        `/runs/${id(runId)}/metrics?after=${after}&eval_after=${evalAfter}`,
        undefined,
        signal,
      ),
    fetchModels: (signal) => call(ModelListSchema, 'GET', '/models', undefined, signal),
    // State changes carry a JSON body so the service's JSON-only rule holds for cancel too.
    cancelRun: (runId, signal) =>
      call(RunInfoSchema, 'POST', `/runs/${id(runId)}/cancel`, {}, signal),
    resumeRun: (runId, signal) =>
      call(RunInfoSchema, 'POST', `/runs/${id(runId)}/resume`, {}, signal),
    fetchSplit: (runId, signal) =>
      call(RunSplitSchema, 'GET', `/runs/${id(runId)}/split`, undefined, signal),
    fetchRunDataset: (runId, signal) =>
      call(RunDatasetSchema, 'GET', `/runs/${id(runId)}/dataset`, undefined, signal),
    fetchRunExports: (runId, signal) =>
      call(RunExportsSchema, 'GET', `/runs/${id(runId)}/exports`, undefined, signal),
    requestRunExport: (runId, request) =>
      call(RunExportsSchema, 'POST', `/runs/${id(runId)}/exports`, request),
    saveRunEvaluation: (runId, evaluation) =>
      call(RunEvaluationResultSchema, 'PUT', `/runs/${id(runId)}/evaluation`, evaluation),
    putDataset: (name, entries, signal) =>
      call(DatasetResponseSchema, 'PUT', `/datasets/${encodeURIComponent(name)}`, entries, signal),
    fetchTrainer: (signal) => call(TrainerInfoSchema, 'GET', '/trainer', undefined, signal),
    fetchTrainerSetup: (signal) =>
      call(TrainerSetupSchema, 'GET', '/trainer/setup', undefined, signal),
    startTrainerSetup: (signal) => call(TrainerSetupSchema, 'POST', '/trainer/setup', {}, signal),
    fetchHubCache: (signal) => call(HubCacheSchema, 'GET', '/hub-cache', undefined, signal),
    removeCachedModel: (modelId, signal) =>
      call(
        HubCacheSchema,
        'DELETE',
        `/hub-cache/models/${modelId.split('/').map(encodeURIComponent).join('/')}`,
        {},
        signal,
      ),
  };
}

/**
 * The actors `trainingMachine` names, for `trainingMachine.provide({ actors })`: each one call (or
 * one poll's three) of the client, cancelled with the actor. Nothing is cached: every poll must
 * be fresh, a start or a resume must never be retried (a second POST could start a second run),
 * and no view reads these answers but the machine.
 */
export function createTrainingActors(client: TrainingClient = createTrainingClient()) {
  return {
    startTraining: fromPromise<StartTrainingOutput, StartTrainingInput>(
      async ({ input, signal }) => ({
        runId: (await client.startTraining(input.request, signal)).run_id,
      }),
    ),
    pollRun: fromPromise<PollRunOutput, PollRunInput>(async ({ input, signal }) => {
      const [logs, run, metrics] = await Promise.all([
        client.fetchLogs(input.runId, input.tail, signal),
        client.fetchRun(input.runId, signal),
        client.fetchMetrics(input.runId, input.after, input.evalAfter, signal),
      ]);
      return { lines: logs.lines, run, metrics };
    }),
    // GET /trainer imports torch on the service (seconds the first time): read beside the
    // catalog, never in its way.
    fetchTrainer: fromPromise<TrainerInfo>(({ signal }) => client.fetchTrainer(signal)),
    fetchCatalog: fromPromise<Catalog>(async ({ signal }) => {
      const [runs, models] = await Promise.all([
        client.fetchRuns(signal),
        // Models are an extra: a failure here must not hide the runs.
        client.fetchModels(signal).catch(() => ({ models: [] })),
      ]);
      return { runs, models: models.models };
    }),
    cancelRun: fromPromise<RunInfo, CancelRunInput>(({ input, signal }) =>
      client.cancelRun(input.runId, signal),
    ),
    resumeRun: fromPromise<RunInfo, CancelRunInput>(({ input, signal }) =>
      client.resumeRun(input.runId, signal),
    ),
  };
}
