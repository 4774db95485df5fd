/**
 * The Hub cache of downloaded base models (hub-cache.ts): GET /hub-cache lists it,
 * DELETE /hub-cache/models/{org}/{name} removes one model (409 while a run going now uses it).
 */
import type { FastifyInstance } from 'fastify';
import { SERVICE_ROUTES as ROUTES } from '../../../src/shared/service-http';
import type { HubCache } from '../../../src/shared/training-api';

/** What the routes call: the service's HubCacheStore, or the mock's fake (the same methods). */
export interface HubCacheDomain {
  list(): Promise<HubCache>;
  /** Removes one model's files; refused (busy) while a run going now trains from it. */
  remove(id: string): Promise<HubCache>;
}

export function registerHubCacheRoutes(app: FastifyInstance, cache: HubCacheDomain): void {
  app.get(ROUTES.hubCache.url, (): Promise<HubCache> => cache.list());
  app.delete<{ Params: { org: string; name: string } }>(
    ROUTES.removeCachedModel.url,
    { schema: ROUTES.removeCachedModel.schema },
    (request): Promise<HubCache> => cache.remove(`${request.params.org}/${request.params.name}`),
  );
}
