/**
 * The worker's storage requests (Stored models' list and delete, a model's download plan),
 * answered through `post`. Every request that names a model reaches transformers.js through the
 * host gate, with that model's own host.
 */
import type { StorageRequest, StorageResponse } from '../shared/storage-protocol';
import { DEFAULT_MODEL_HOST } from '../shared/models';
import { errorMessage } from '../shared/errors';
import type { HostGate } from './host-gate';
import {
  deleteStoredModel,
  listStoredModels,
  planDownload,
  storePlan,
  storedPlan,
  type AdapterLimits,
} from './model-storage';
import { registry } from './transformers-adapters';

export interface StorageDeps {
  caches: CacheStorage;
  hosts: HostGate;
  /** The GPU adapter's buffer limits (null without WebGPU). */
  limits: () => Promise<AdapterLimits | null>;
  /** The browser's storage estimate (null when it has none). */
  estimate: () => Promise<{ usage?: number; quota?: number } | null>;
  post: (message: StorageResponse) => void;
}

export async function answerStorage(request: StorageRequest, deps: StorageDeps): Promise<void> {
  const { post } = deps;
  switch (request.type) {
    case 'storage.list':
      try {
        post({ status: 'stored', models: await listStoredModels(deps.caches) });
      } catch (error) {
        post({
          status: 'storage-error',
          op: 'list',
          data: `Could not read the browser cache: ${errorMessage(error)}`,
        });
      }
      break;
    case 'storage.delete':
      try {
        const removed = await deleteStoredModel(request.id, {
          storage: deps.caches,
          registry,
          atHost: (host, work) => deps.hosts.run(host, work),
        });
        post({ status: 'deleted', id: request.id, removed });
      } catch (error) {
        post({
          status: 'storage-error',
          op: 'delete',
          id: request.id,
          data: `Could not delete ${request.id}: ${errorMessage(error)}`,
        });
      }
      break;
    case 'plan': {
      const spec = request.data;
      try {
        const estimate = await deps.estimate().catch(() => null);
        const limits = await deps.limits();
        const plan = await deps.hosts.run(spec.host ?? DEFAULT_MODEL_HOST, () =>
          planDownload(spec, { registry, limits, estimate }),
        );
        post({ status: 'plan', plan });
        // Kept so the size shows offline too (a variant with missing files is not worth keeping).
        if (!plan.missing?.length) await storePlan(deps.caches, spec, plan).catch(() => {});
      } catch (error) {
        const stored = await storedPlan(deps.caches, spec).catch(() => null);
        if (stored) post({ status: 'plan', plan: stored });
        else post({ status: 'storage-error', op: 'plan', id: spec.id, data: errorMessage(error) });
      }
      break;
    }
  }
}
