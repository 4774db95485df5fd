/** GET / (who answers, where the API is documented) and GET /health. */
import type { FastifyInstance } from 'fastify';
import type { ServiceInfo } from '../../../src/shared/training-api';

export const ENDPOINTS = [
  'GET /',
  'GET /health',
  'POST /train',
  'GET /runs',
  'GET /runs/{run_id}',
  'GET /runs/{run_id}/metrics',
  'GET /runs/{run_id}/split',
  'GET /runs/{run_id}/dataset',
  'POST /runs/{run_id}/cancel',
  'GET /logs/{run_id}',
  'PUT /datasets/{name}',
  'GET /models',
  'GET|HEAD /trained/{name}/resolve/main/{file}',
  'GET /trainer',
  'POST /trainer/setup',
  'GET /trainer/setup',
];

export function registerInfoRoutes(app: FastifyInstance, version: string): void {
  const info: ServiceInfo = {
    name: 'Local LLM Studio training service',
    version,
    docs: 'service/README.md in the repository (section "Endpoints")',
    endpoints: ENDPOINTS,
  };
  app.get('/health', () => ({ ok: true }));
  app.get('/', () => info);
}
