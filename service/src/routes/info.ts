/** GET / (who answers, where the API is documented) and GET /health. */
import type { FastifyInstance } from 'fastify';
import { SERVICE_ENDPOINTS, type ServiceInfo } from '../../../src/shared/training-api';

export function registerInfoRoutes(app: FastifyInstance, version: string): void {
  const info: ServiceInfo = {
    name: 'Local LLM Studio training service',
    version,
    docs: 'service/README.md in the repository (section "Endpoints")',
    endpoints: [...SERVICE_ENDPOINTS],
  };
  app.get('/health', () => ({ ok: true }));
  app.get('/', () => info);
}
