/** PUT /datasets/{name}: stores a dataset for training (its path can be a run's data_file). */
import type { FastifyInstance } from 'fastify';
import {
  DatasetParamsSchema,
  DatasetSchema,
  type TrainingEntry,
  type DatasetResponse,
} from '../../../src/shared/training-api';
import type { DatasetStore } from '../datasets';

export function registerDatasetRoutes(
  app: FastifyInstance,
  datasets: DatasetStore,
  bodyLimit: number,
): void {
  app.put<{ Params: { name: string }; Body: TrainingEntry[] }>(
    '/datasets/:name',
    { bodyLimit, schema: { params: DatasetParamsSchema, body: DatasetSchema } },
    (request): Promise<DatasetResponse> => datasets.save(request.params.name, request.body),
  );
}
