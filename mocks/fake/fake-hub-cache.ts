/**
 * The mock's Hub cache (GET /hub-cache, DELETE /hub-cache/models/{org}/{name}) with the
 * service's methods and refusals (service/src/hub-cache.ts): models held in memory, the base of
 * the running run in use and not removable.
 */
import { busy, notFound } from '../../src/shared/domain-errors';
import type { CachedModel, HubCache } from '../../src/shared/training-api';
import { trainingMessages } from '../../src/shared/training-messages';

/** Where the mock says its cache is (the service's default, inside its data folder). */
export const MOCK_HUB_CACHE_DIR = '/home/user/llm-studio/service-data/hub-cache';

export class FakeHubCache {
  private models: Omit<CachedModel, 'inUse'>[] = [];

  constructor(private readonly inUse: () => string | null) {}

  /** The cache's models from now on (tests, the mock mode's start). */
  hold(models: readonly Omit<CachedModel, 'inUse'>[]): void {
    this.models = [...models];
  }

  list(): Promise<HubCache> {
    const base = this.inUse();
    const models = this.models.map((m) => ({ ...m, inUse: m.id === base }));
    return Promise.resolve({
      dir: MOCK_HUB_CACHE_DIR,
      bytes: models.reduce((sum, m) => sum + m.bytes, 0),
      models,
    });
  }

  remove(id: string): Promise<HubCache> {
    if (!this.models.some((m) => m.id === id))
      throw notFound(trainingMessages.notInHubCache(MOCK_HUB_CACHE_DIR, id));
    if (this.inUse() === id) throw busy(trainingMessages.hubModelInUse(id));
    this.models = this.models.filter((m) => m.id !== id);
    return this.list();
  }
}
