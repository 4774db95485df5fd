/**
 * The HTTP layer: Fastify routes validated by the shared zod/mini schemas, behind the security
 * hooks (loopback Host only, Origin allowlist with CORS, JSON-only state changes).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import {
  DatasetParamsSchema,
  DatasetSchema,
  LogsQuerySchema,
  MetricsQuerySchema,
  RunParamsSchema,
  TrainRequestSchema,
  formatIssues,
  type DatasetResponse,
  type ErrorResponse,
  type LogsQuery,
  type MetricsQuery,
  type RunList,
  type ServiceInfo,
  type TrainRequest,
  type TrainResponse,
} from '../../src/shared/training-api';
import { LOOPBACK_HOSTS, REPO_ROOT, type ServiceConfig } from './config';
import { registerModelRoutes } from './model-routes';
import { RequestError } from './paths';
import { RunManager, type SpawnFn } from './runs';

const SUBJECT: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function sendError(reply: FastifyReply, statusCode: number, message: string) {
  const body: ErrorResponse = { error: message };
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}

/** Host values that name this service: its loopback names with the port it listens on. */
function allowedHosts(port: number): Set<string> {
  return new Set(LOOPBACK_HOSTS.map((h) => `${h.includes(':') ? `[${h}]` : h}:${port}`));
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface AppDeps {
  spawn?: SpawnFn;
}

export interface TrainingService {
  app: FastifyInstance;
  runs: RunManager;
  /** Listens on config.host:config.port (0 = a free port); resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export function buildService(config: ServiceConfig, deps: AppDeps = {}): TrainingService {
  const runs = new RunManager(config, deps.spawn);
  runs.init();
  const app = Fastify({
    bodyLimit: config.bodyLimit,
    routerOptions: { maxParamLength: 200 },
    logger: false,
  });
  let hosts = allowedHosts(config.port);
  const origins = new Set(config.allowedOrigins);

  // The shared schemas validate every request part; failures become one readable 400.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const zodSchema = schema as z.ZodMiniType;
    const subject = SUBJECT[httpPart ?? 'body'] ?? 'request';
    return (data: unknown) => {
      const result = z.safeParse(zodSchema, data ?? undefined);
      if (result.success) return { value: result.data };
      const error = new RequestError(
        400,
        `Invalid ${subject}: ${formatIssues(result.error.issues, subject)}`,
      );
      return { error };
    };
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // DNS rebinding: a foreign name resolving to 127.0.0.1 still sends its own Host.
    const host = request.headers.host ?? '';
    if (!hosts.has(host.toLowerCase()))
      return sendError(
        reply,
        403,
        `Host "${host}" is not this service's loopback address (expected one of ${[...hosts].join(', ')})`,
      );
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!origins.has(origin))
        return sendError(
          reply,
          403,
          origin === 'null'
            ? 'Origin "null" is never allowed'
            : `Origin "${origin}" is not allowed (allowed: ${[...origins].join(', ')}; set TRAINING_ALLOWED_ORIGINS)`,
        );
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header(
        'Access-Control-Expose-Headers',
        'Content-Length, Content-Range, Accept-Ranges, ETag',
      );
    }
    if (request.method === 'OPTIONS') {
      reply.header('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Content-Type, Range');
      reply.header('Access-Control-Max-Age', '600');
      if (request.headers['access-control-request-private-network'] === 'true')
        reply.header('Access-Control-Allow-Private-Network', 'true');
      return reply.code(204).send();
    }
    // A cross-site form can only send text/plain, urlencoded or multipart without a preflight.
    if (STATE_CHANGING.has(request.method)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json')
        return sendError(
          reply,
          415,
          `Content-Type must be application/json for ${request.method} requests (got "${request.headers['content-type'] ?? 'none'}")`,
        );
    }
    return undefined;
  });

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof RequestError) return sendError(reply, error.statusCode, error.message);
    const e = error as { statusCode?: number; code?: string; message?: string };
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    let message = e.message ?? 'Internal error';
    if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      message = `Malformed JSON body: ${message}`;
    else if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body is too large';
    else if (status >= 500) message = `Internal error: ${message}`;
    return sendError(reply, status, message);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `No route ${request.method} ${request.url.split('?')[0] ?? ''}`),
  );

  app.get('/health', () => ({ ok: true }));

  const info: ServiceInfo = {
    name: 'Local LLM Studio training service',
    version: packageVersion(),
    docs: 'service/README.md in the repository (section "Endpoints")',
    endpoints: [
      'GET /',
      'GET /health',
      'POST /train',
      'GET /runs',
      'GET /runs/{run_id}',
      'GET /runs/{run_id}/metrics',
      'POST /runs/{run_id}/cancel',
      'GET /logs/{run_id}',
      'PUT /datasets/{name}',
      'GET /models',
      'GET|HEAD /trained/{name}/resolve/main/{file}',
    ],
  };
  app.get('/', () => info);

  app.post<{ Body: TrainRequest }>(
    '/train',
    { schema: { body: TrainRequestSchema } },
    async (request) => {
      const run = await runs.start(request.body);
      const response: TrainResponse = { run_id: run.id };
      return response;
    },
  );

  app.get('/runs', (): RunList => ({ runs: runs.list(), active: runs.activeId }));

  app.get<{ Params: { id: string } }>(
    '/runs/:id',
    { schema: { params: RunParamsSchema } },
    (request) => runs.get(request.params.id),
  );

  app.get<{ Params: { id: string }; Querystring: MetricsQuery }>(
    '/runs/:id/metrics',
    { schema: { params: RunParamsSchema, querystring: MetricsQuerySchema } },
    (request) => runs.metrics(request.params.id, request.query.after),
  );

  app.post<{ Params: { id: string } }>(
    '/runs/:id/cancel',
    { schema: { params: RunParamsSchema } },
    (request) => runs.cancel(request.params.id),
  );

  app.get<{ Params: { id: string }; Querystring: LogsQuery }>(
    '/logs/:id',
    { schema: { params: RunParamsSchema, querystring: LogsQuerySchema } },
    (request) => runs.logs(request.params.id, request.query),
  );

  app.put<{ Params: { name: string }; Body: z.infer<typeof DatasetSchema> }>(
    '/datasets/:name',
    {
      bodyLimit: config.datasetLimit,
      schema: { params: DatasetParamsSchema, body: DatasetSchema },
    },
    async (request) => {
      const dir = join(config.dataDir, 'datasets');
      await mkdir(dir, { recursive: true });
      const name = request.params.name.endsWith('.json')
        ? request.params.name
        : `${request.params.name}.json`;
      const file = join(dir, name);
      await writeFile(`${file}.tmp`, JSON.stringify(request.body, null, 2));
      await rename(`${file}.tmp`, file);
      const response: DatasetResponse = { path: file, entries: request.body.length };
      return response;
    },
  );

  registerModelRoutes(app, runs);

  return {
    app,
    runs,
    async listen() {
      await runs.recover();
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      hosts = allowedHosts(port);
      return port;
    },
    async close() {
      await app.close();
      await runs.shutdown();
    },
  };
}
