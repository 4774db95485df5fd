/**
 * Runs: start one, list them, read one's state, log, metrics, held-out split and dataset; cancel
 * one; resume one that ended without its result.
 */
import type { FastifyInstance } from 'fastify';
import {
  LogsQuerySchema,
  MetricsQuerySchema,
  RunParamsSchema,
  TrainRequestSchema,
  type LogsQuery,
  type MetricsQuery,
  type ErrorResponse,
  type PlanResponse,
  type RunDataset,
  type RunList,
  type TrainRequest,
  type TrainResponse,
} from '../../../src/shared/training-api';
import { PlanTimeoutError } from '../plan';
import type { RunManager } from '../runs';

type ById = { Params: { id: string } };
const byId = { schema: { params: RunParamsSchema } };

export function registerRunRoutes(app: FastifyInstance, runs: RunManager): void {
  app.post<{ Body: TrainRequest }>(
    '/train',
    { schema: { body: TrainRequestSchema } },
    async (request): Promise<TrainResponse> => ({ run_id: (await runs.start(request.body)).id }),
  );

  app.post<{ Body: TrainRequest }>(
    '/train/plan',
    { schema: { body: TrainRequestSchema } },
    async (request, reply): Promise<PlanResponse | ErrorResponse> => {
      try {
        return await runs.plan(request.body);
      } catch (error) {
        if (!(error instanceof PlanTimeoutError)) throw error;
        return reply.code(504).send({ error: error.message });
      }
    },
  );

  app.get('/runs', (): RunList => ({ runs: runs.list(), active: runs.activeId }));

  app.get<ById>('/runs/:id', byId, (request) => runs.get(request.params.id));

  app.get<ById & { Querystring: MetricsQuery }>(
    '/runs/:id/metrics',
    { schema: { params: RunParamsSchema, querystring: MetricsQuerySchema } },
    (request) => runs.metrics(request.params.id, request.query.after, request.query.eval_after),
  );

  app.get<ById>('/runs/:id/split', byId, (request) => runs.split(request.params.id));

  app.get<ById>('/runs/:id/dataset', byId, async (request): Promise<RunDataset> => ({
    entries: await runs.dataset(request.params.id),
  }));

  app.post<ById>('/runs/:id/cancel', byId, (request) => runs.cancel(request.params.id));

  app.post<ById>('/runs/:id/resume', byId, (request) => runs.resume(request.params.id));

  app.get<ById & { Querystring: LogsQuery }>(
    '/logs/:id',
    { schema: { params: RunParamsSchema, querystring: LogsQuerySchema } },
    (request) => runs.logs(request.params.id, request.query),
  );
}
