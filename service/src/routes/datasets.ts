/** PUT /datasets/{name}: stores a dataset for training (its path can be a run's data_file). */
import type { FastifyInstance } from 'fastify';
import type { DatasetsDomain } from '../../../src/shared/service-domain';
import { SERVICE_ROUTES } from '../../../src/shared/service-http';
import type { DatasetResponse, TrainingEntry } from '../../../src/shared/training-api';

export function registerDatasetRoutes(
  app: FastifyInstance,
  datasets: DatasetsDomain,
  bodyLimit: number,
): void {
  app.put<{ Params: { name: string }; Body: TrainingEntry[] }>(
    SERVICE_ROUTES.saveDataset.url,
    { bodyLimit, schema: SERVICE_ROUTES.saveDataset.schema },
    (request): Promise<DatasetResponse> => datasets.save(request.params.name, request.body),
  );
}
