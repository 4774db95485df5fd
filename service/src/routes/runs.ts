/**
 * Runs: start one, list them, read one's state, log, metrics, held-out split and dataset; cancel
 * one; resume one that ended without its result.
 */
import type { FastifyInstance } from 'fastify';
import { SERVICE_ROUTES as ROUTES } from '../../../src/shared/service-http';
import type { RunsDomain } from '../../../src/shared/service-domain';
import type {
  LogsQuery,
  MetricsQuery,
  PlanResponse,
  RunDataset,
  RunList,
  TrainRequest,
  TrainResponse,
} from '../../../src/shared/training-api';

type ById = { Params: { id: string } };

export function registerRunRoutes(app: FastifyInstance, runs: RunsDomain): void {
  app.post<{ Body: TrainRequest }>(
    ROUTES.train.url,
    { schema: ROUTES.train.schema },
    async (request): Promise<TrainResponse> => ({ run_id: (await runs.start(request.body)).id }),
  );

  // A trainer that does not answer in time is the shared `planTimedOut` (504).
  app.post<{ Body: TrainRequest }>(
    ROUTES.plan.url,
    { schema: ROUTES.plan.schema },
    (request): Promise<PlanResponse> => runs.plan(request.body),
  );

  app.get(ROUTES.runs.url, (): RunList => ({ runs: runs.list(), active: runs.activeId }));

  app.get<ById>(ROUTES.run.url, { schema: ROUTES.run.schema }, (request) =>
    runs.get(request.params.id),
  );

  app.get<ById & { Querystring: MetricsQuery }>(
    ROUTES.metrics.url,
    { schema: ROUTES.metrics.schema },
    (request) => runs.metrics(request.params.id, request.query.after, request.query.eval_after),
  );

  app.get<ById>(ROUTES.split.url, { schema: ROUTES.split.schema }, (request) =>
    runs.split(request.params.id),
  );

  app.get<ById>(
    ROUTES.dataset.url,
    { schema: ROUTES.dataset.schema },
    async (request): Promise<RunDataset> => ({
      entries: await runs.dataset(request.params.id),
    }),
  );

  app.post<ById>(ROUTES.cancel.url, { schema: ROUTES.cancel.schema }, (request) =>
    runs.cancel(request.params.id),
  );

  app.post<ById>(ROUTES.resume.url, { schema: ROUTES.resume.schema }, (request) =>
    runs.resume(request.params.id),
  );

  app.get<ById & { Querystring: LogsQuery }>(
    ROUTES.logs.url,
    { schema: ROUTES.logs.schema },
    (request) => runs.logs(request.params.id, request.query),
  );
}
