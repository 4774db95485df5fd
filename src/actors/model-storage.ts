/**
 * Stored models, for the worker (where transformers.js lives): which models have files in
 * transformers.js's browser cache and how many bytes, deleting one, and the download size and fit
 * of a model before it is downloaded. transformers.js's `ModelRegistry` is passed in (the worker
 * hands in the real one, tests a fake), so this file does not import the library.
 */
import type { DownloadPlan, StoredModel } from '../shared/storage';
import { fitWarnings, isWeightFile } from '../shared/storage';

/** The part of transformers.js's `ModelRegistry` used here. */
export interface Registry {
  get_files(
    modelId: string,
    options?: { dtype?: string; device?: string; include_processor?: boolean },
  ): Promise<string[]>;
  get_file_metadata(modelId: string, file: string): Promise<{ exists: boolean; size?: number }>;
  clear_cache(
    modelId: string,
    options?: { dtype?: string; device?: string },
  ): Promise<{ filesDeleted: number }>;
}

/** transformers.js's default browser cache (`env.cacheKey`). */
export const MODEL_CACHE = 'transformers-cache';

/** `https://host/{owner}/{name}/resolve/{revision}/{file}` → its parts; null for other keys (wasm). */
export function parseCacheKey(url: string): { host: string; id: string; file: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const m = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(parsed.pathname);
  if (!m?.[1] || !m[2]) return null;
  return {
    host: `${parsed.origin}/`,
    id: decodeURIComponent(m[1]),
    file: decodeURIComponent(m[2]),
  };
}

/** The dtype a cached ONNX file name implies (`model_q4f16.onnx` → q4f16, `model.onnx` → fp32). */
export function dtypeOfFile(file: string): string | null {
  const m = /(?:^|\/)[^/]+?(?:_(fp16|q4f16|q4|q8|int8|uint8|bnb4|quantized))?\.onnx$/.exec(file);
  if (!m) return null;
  return m[1] === 'quantized' ? 'q8' : (m[1] ?? 'fp32');
}

async function sizeOf(response: Response | undefined): Promise<number> {
  if (!response) return 0;
  // The bytes really stored (a cached body is not re-downloaded; the blob is backed by the cache).
  return (await response.blob()).size;
}

/** Every model with files in the cache, with the bytes those files take; largest first. */
export async function listStoredModels(storage: CacheStorage): Promise<StoredModel[]> {
  if (!(await storage.has(MODEL_CACHE))) return [];
  const cache = await storage.open(MODEL_CACHE);
  const byId = new Map<string, StoredModel>();
  for (const request of await cache.keys()) {
    const key = parseCacheKey(request.url);
    if (!key) continue;
    const entry = byId.get(key.id) ?? { id: key.id, bytes: 0, files: 0, hosts: [] };
    entry.bytes += await sizeOf(await cache.match(request));
    entry.files += 1;
    if (!entry.hosts.includes(key.host)) entry.hosts.push(key.host);
    byId.set(key.id, entry);
  }
  return [...byId.values()].sort((a, b) => b.bytes - a.bytes || a.id.localeCompare(b.id));
}

/**
 * Deletes a model's cached files: transformers.js's `clear_cache` for the files it knows (under
 * each host they were cached from), then any file it did not name (another dtype, an old file).
 * Returns how many entries were removed.
 */
export async function deleteStoredModel(
  id: string,
  deps: { storage: CacheStorage; registry: Registry; setHost: (host: string) => void },
): Promise<number> {
  const cache = await deps.storage.open(MODEL_CACHE);
  const keys = (await cache.keys())
    .map((request) => ({ request, key: parseCacheKey(request.url) }))
    .filter((k) => k.key?.id === id);
  const hosts = [...new Set(keys.map((k) => k.key?.host ?? ''))];
  let removed = 0;
  for (const host of hosts) {
    const dtype = keys.map((k) => dtypeOfFile(k.key?.file ?? '')).find((d) => d !== null);
    deps.setHost(host);
    try {
      const result = await deps.registry.clear_cache(id, {
        dtype: dtype ?? undefined,
        device: 'webgpu',
      });
      removed += result.filesDeleted;
    } catch {
      // Its config is gone or unreachable: the sweep below still removes every file.
    }
  }
  for (const { request } of keys) if (await cache.delete(request)) removed += 1;
  return removed;
}

export interface AdapterLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  shaderF16: boolean;
}

/**
 * The download size of a model variant (from file metadata, without downloading) and why it
 * may not fit: the largest weight file above the adapter's buffer limits, the total above the
 * free storage, an fp16 model without `shader-f16`.
 */
export async function planDownload(
  spec: { id: string; dtype: string },
  deps: {
    registry: Registry;
    limits: AdapterLimits | null;
    estimate: { usage?: number; quota?: number } | null;
  },
): Promise<DownloadPlan> {
  const files = await deps.registry.get_files(spec.id, {
    dtype: spec.dtype,
    device: 'webgpu',
    include_processor: false,
  });
  const sizes = await Promise.all(
    files.map(async (file) => {
      const meta = await deps.registry.get_file_metadata(spec.id, file);
      return { file, size: meta.exists ? (meta.size ?? 0) : 0 };
    }),
  );
  const weights = sizes.filter((s) => isWeightFile(s.file));
  const largest = weights.reduce<{ file: string; size: number } | null>(
    (best, s) => (best === null || s.size > best.size ? s : best),
    null,
  );
  const totalBytes = sizes.reduce((sum, s) => sum + s.size, 0);
  const free =
    deps.estimate?.quota !== undefined ? deps.estimate.quota - (deps.estimate.usage ?? 0) : null;
  return {
    id: spec.id,
    dtype: spec.dtype,
    totalBytes,
    largestFile: largest,
    warnings: fitWarnings({
      dtype: spec.dtype,
      totalBytes,
      largest,
      limits: deps.limits,
      freeBytes: free,
    }),
  };
}
