/** GET / (who answers, where the API is documented) and GET /health. */
import type { FastifyInstance } from 'fastify';
import { SERVICE_ROUTES, serviceInfo } from '../../../src/shared/service-http';

export function registerInfoRoutes(app: FastifyInstance, version: string): void {
  const info = serviceInfo('Local LLM Studio training service', version);
  app.get(SERVICE_ROUTES.health.url, () => ({ ok: true }));
  app.get(SERVICE_ROUTES.info.url, () => info);
}
