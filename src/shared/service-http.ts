/**
 * The training service's HTTP rules, written once for the service (service/src/routes) and the
 * mock (mocks/training-handlers.ts): each route's method, path, request schemas and success
 * status; the status of each domain error kind; the JSON-only rule for state changes; the texts of
 * the 400s the request layer answers before any domain code runs; the log's paging and the plan's
 * time-out, which the service's domain and the mock's fake domain both follow.
 */
import * as z from 'zod/mini';
import { badInput, timedOut, type DomainError, type DomainErrorKind } from './domain-errors';
import {
  DatasetParamsSchema,
  DatasetSchema,
  ExportArchiveParamsSchema,
  ExportFileParamsSchema,
  ExportRequestSchema,
  HubModelParamsSchema,
  LOG_TAIL,
  LogsQuerySchema,
  MetricsQuerySchema,
  RunParamsSchema,
  SERVICE_ENDPOINTS,
  TrainRequestSchema,
  formatIssues,
  type LogsQuery,
  type LogsResponse,
  type ServiceInfo,
} from './training-api';
import { trainingMessages } from './training-messages';
import { RunEvaluationSchema } from './run-evaluation';

/** The status each kind of domain error answers with; the body is `{ "error": message }`. */
export const ERROR_STATUS: Record<DomainErrorKind, number> = {
  'bad-input': 400,
  'not-found': 404,
  busy: 409,
  'folder-in-use': 409,
  'wrong-state': 409,
  unreadable: 422,
  'launch-failed': 500,
  'timed-out': 504,
};

/** The request parts a route validates, by Fastify's names for them. */
export type RequestPart = 'params' | 'querystring' | 'body' | 'headers';

/** How an error text names each part: "Invalid path: id is not a valid run id". */
const SUBJECT: Record<RequestPart, string> = {
  params: 'path',
  querystring: 'query',
  body: 'body',
  headers: 'headers',
};

/**
 * One request part checked against its schema: the parsed value, or the bad-input error the
 * service answers (400, "Invalid <part>: <field> <what is wrong>").
 */
export function checkRequestPart<T>(
  schema: z.ZodMiniType<T>,
  data: unknown,
  part: RequestPart,
): { value: T } | { error: DomainError } {
  const result = z.safeParse(schema, data ?? undefined);
  if (result.success) return { value: result.data };
  const subject = SUBJECT[part];
  return { error: badInput(`Invalid ${subject}: ${formatIssues(result.error.issues, subject)}`) };
}

/** The answer to a body that is not JSON (`detail`: the parser's own words). */
export const malformedJson = (detail: string) => `Malformed JSON body: ${detail}`;

/** Methods that change state: they must send `Content-Type: application/json`. */
export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set([
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/**
 * The JSON-only rule (a cross-site form cannot send JSON without a CORS preflight): the 415 text
 * for a state change of another content type, or null when the request may go on.
 */
export function contentTypeRefusal(method: string, contentType: string | undefined): string | null {
  if (!STATE_CHANGING_METHODS.has(method)) return null;
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' ? null : trainingMessages.contentType(method, contentType);
}

/** The set-up takes no options: the body must be `{}`. */
export const SetupBodySchema = z.strictObject({});

/** A route of the service: what the service registers and what the mock answers. */
export interface ServiceRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify's path syntax (`:id`), which MSW reads the same way. */
  url: string;
  /** The schemas of the parts the route validates (Fastify's route `schema` option). */
  schema?: Partial<Record<RequestPart, z.ZodMiniType>>;
  /** The status of a success, when it is not 200. */
  status?: number;
}

// The schemas the routes below validate, by the parts they name.
const trainBody = { body: TrainRequestSchema };
const byId = { params: RunParamsSchema };
const metricsQuery = { ...byId, querystring: MetricsQuerySchema };
const logsQuery = { ...byId, querystring: LogsQuerySchema };
const datasetPut = { params: DatasetParamsSchema, body: DatasetSchema };
const setupBody = { body: SetupBodySchema };
const byHubModel = { params: HubModelParamsSchema };
const exportFile = { params: ExportFileParamsSchema };
const exportArchive = { params: ExportArchiveParamsSchema };
const exportRequest = { params: RunParamsSchema, body: ExportRequestSchema };
const evaluationPut = { params: RunParamsSchema, body: RunEvaluationSchema };

/** Every route of the service but the trained files' (the service's alone); JSON but the exports' files. */
export const SERVICE_ROUTES = {
  info: { method: 'GET', url: '/' },
  health: { method: 'GET', url: '/health' },
  train: { method: 'POST', url: '/train', schema: trainBody },
  plan: { method: 'POST', url: '/train/plan', schema: trainBody },
  runs: { method: 'GET', url: '/runs' },
  run: { method: 'GET', url: '/runs/:id', schema: byId },
  metrics: { method: 'GET', url: '/runs/:id/metrics', schema: metricsQuery },
  split: { method: 'GET', url: '/runs/:id/split', schema: byId },
  dataset: { method: 'GET', url: '/runs/:id/dataset', schema: byId },
  exports: { method: 'GET', url: '/runs/:id/exports', schema: byId },
  exportRun: { method: 'POST', url: '/runs/:id/exports', schema: exportRequest, status: 202 },
  // A file, not JSON: the service also answers HEAD, Range and sends Content-Disposition.
  exportFile: { method: 'GET', url: '/runs/:id/exports/gguf/:file', schema: exportFile },
  // A zip streamed as it is made (its size known before: Content-Length), HEAD too; no Range.
  exportArchive: { method: 'GET', url: '/runs/:id/exports/archive/:kind', schema: exportArchive },
  // Compare's scores for the run's model card (compare.json, then the card rewritten).
  runEvaluation: { method: 'PUT', url: '/runs/:id/evaluation', schema: evaluationPut },
  cancel: { method: 'POST', url: '/runs/:id/cancel', schema: byId },
  resume: { method: 'POST', url: '/runs/:id/resume', schema: byId },
  logs: { method: 'GET', url: '/logs/:id', schema: logsQuery },
  saveDataset: { method: 'PUT', url: '/datasets/:name', schema: datasetPut },
  models: { method: 'GET', url: '/models' },
  trainer: { method: 'GET', url: '/trainer' },
  startSetup: { method: 'POST', url: '/trainer/setup', schema: setupBody, status: 202 },
  setup: { method: 'GET', url: '/trainer/setup' },
  hubCache: { method: 'GET', url: '/hub-cache' },
  removeCachedModel: { method: 'DELETE', url: '/hub-cache/models/:org/:name', schema: byHubModel },
} as const satisfies Record<string, ServiceRoute>;

/** GET /: who answers (the service, or the mock), and where the API is documented. */
export const serviceInfo = (name: string, version: string): ServiceInfo => ({
  name,
  version,
  docs: 'service/README.md in the repository (section "Endpoints")',
  endpoints: [...SERVICE_ENDPOINTS],
});

/** Lines a GET /logs/{id}?offset=K page holds when it names no `limit`. */
export const LOG_PAGE_LINES = 100;

/** A run's log as GET /logs/{id} reads it (the service's LogStore; a fake run's lines). */
export interface LogSource {
  /** Committed lines so far (read once the answer's lines are). */
  readonly total: number;
  /** The last `n` lines (a line still being written may be the last). */
  tail(n: number): string[];
  /** Committed lines `offset`…`offset+limit-1` (none past the end). */
  page(offset: number, limit: number): string[] | Promise<string[]>;
}

/**
 * GET /logs/{id}: `offset=K` (and `limit=L`, default {@link LOG_PAGE_LINES}) pages through the
 * committed lines, `next_offset` being where the next page starts; otherwise the last `tail=N`
 * lines (default `LOG_TAIL`), `next_offset` the end of the log. Both forms at once are a 400.
 */
export async function readLog(log: LogSource, query: LogsQuery): Promise<LogsResponse> {
  if (query.tail !== undefined && (query.offset !== undefined || query.limit !== undefined))
    throw badInput(trainingMessages.tailAndOffset());
  if (query.offset !== undefined) {
    const lines = await log.page(query.offset, query.limit ?? LOG_PAGE_LINES);
    return { lines, total: log.total, next_offset: query.offset + lines.length };
  }
  return { lines: log.tail(query.tail ?? LOG_TAIL), total: log.total, next_offset: log.total };
}

/** How long POST /train/plan waits for the trainer (it reads the tokenizer and the whole data). */
export const PLAN_TIMEOUT_MS = 60_000;

/** POST /train/plan's answer (504) when the trainer did not finish planning within `timeoutMs`. */
export function planTimedOut(timeoutMs: number): DomainError {
  const seconds = (timeoutMs / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });
  return timedOut(
    `The trainer did not finish planning within ${seconds} s (a large dataset or a slow ` +
      'disk?); the run itself can still be started.',
  );
}
