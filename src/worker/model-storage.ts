/**
 * Stored models, for the worker (where transformers.js lives): which models have files in
 * transformers.js's browser cache and how many bytes, deleting one, and the download size and fit
 * of a model before it is downloaded. transformers.js's `ModelRegistry` is passed in (the worker
 * hands in the real one, tests a fake), so this file does not import the library.
 */
import type { DownloadPlan, StoredModel } from '../shared/storage';
import { fitWarnings, isWeightFile } from '../shared/storage';
import { isObject, isUnknownArray } from '../shared/guards';

/** The part of transformers.js's `ModelRegistry` used here (always for WebGPU). */
export interface Registry {
  get_files(
    modelId: string,
    options?: { dtype?: string; device?: 'webgpu'; include_processor?: boolean },
  ): Promise<string[]>;
  get_file_metadata(modelId: string, file: string): Promise<{ exists: boolean; size?: number }>;
  clear_cache(
    modelId: string,
    options?: { dtype?: string; device?: 'webgpu' },
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
 * Deletes everything the app stored for a model: transformers.js's `clear_cache` for the files it
 * knows (under each host they were cached from), then any file it did not name (another dtype, an
 * old file), then its download plans (PLAN_CACHE, every host and dtype). Returns how many model
 * files were removed.
 */
export async function deleteStoredModel(
  id: string,
  deps: {
    storage: CacheStorage;
    registry: Registry;
    /** Runs work with transformers.js pointed at `host` (host-gate.ts). */
    atHost: <T>(host: string, work: () => Promise<T>) => Promise<T>;
  },
): Promise<number> {
  const cache = await deps.storage.open(MODEL_CACHE);
  const keys = (await cache.keys())
    .map((request) => ({ request, key: parseCacheKey(request.url) }))
    .filter((k) => k.key?.id === id);
  const hosts = [...new Set(keys.map((k) => k.key?.host ?? ''))];
  let removed = 0;
  for (const host of hosts) {
    const dtype = keys.map((k) => dtypeOfFile(k.key?.file ?? '')).find((d) => d !== null);
    try {
      const result = await deps.atHost(host, () =>
        deps.registry.clear_cache(id, { dtype: dtype ?? undefined, device: 'webgpu' }),
      );
      removed += result.filesDeleted;
    } catch {
      // Its config is gone or unreachable: the sweep below still removes every file.
    }
  }
  for (const { request } of keys) if (await cache.delete(request)) removed += 1;
  await deletePlans(deps.storage, id);
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
      return { file, size: meta.exists ? (meta.size ?? 0) : 0, exists: meta.exists };
    }),
  );
  const missing = sizes.filter((s) => !s.exists && isWeightFile(s.file)).map((s) => s.file);
  const weights = sizes.filter((s) => isWeightFile(s.file));
  const largest = weights.reduce<{ file: string; size: number } | null>(
    (best, s) => (best === null || s.size > best.size ? { file: s.file, size: s.size } : best),
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
    missing,
  };
}

/**
 * The weight files of a variant the host does not have (from file metadata, before any download):
 * a load of a variant with missing files is never tried.
 */
export async function missingWeightFiles(
  spec: { id: string; dtype: string },
  registry: Registry,
): Promise<string[]> {
  const files = await registry.get_files(spec.id, {
    dtype: spec.dtype,
    device: 'webgpu',
    include_processor: false,
  });
  const weights = files.filter(isWeightFile);
  const metas = await Promise.all(weights.map((f) => registry.get_file_metadata(spec.id, f)));
  return weights.filter((_, i) => !metas[i]?.exists);
}

/** Where the app keeps the sizes of earlier plans, so a size shows offline too. */
export const PLAN_CACHE = 'llm-studio-plans';

function planKey(spec: { id: string; dtype: string; host?: string | undefined }): string {
  const host = encodeURIComponent(spec.host ?? '');
  return `https://plans.invalid/${host}/${encodeURIComponent(spec.id)}/${encodeURIComponent(spec.dtype)}`;
}

/** The model id a plan key names (planKey's third segment); null for another key. */
function planKeyId(url: string): string | null {
  const m = /^https:\/\/plans\.invalid\/[^/]*\/([^/]+)\/[^/]+$/.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

/** Removes every stored plan of a model (all hosts and dtypes). */
async function deletePlans(storage: CacheStorage, id: string): Promise<void> {
  if (!(await storage.has(PLAN_CACHE))) return;
  const cache = await storage.open(PLAN_CACHE);
  for (const request of await cache.keys())
    if (planKeyId(request.url) === id) await cache.delete(request);
}

/** Stores a plan's figures (fit warnings are not kept: they depend on the moment). */
export async function storePlan(
  storage: CacheStorage,
  spec: { host?: string | undefined },
  plan: DownloadPlan,
): Promise<void> {
  const cache = await storage.open(PLAN_CACHE);
  const { warnings: _warnings, ...figures } = plan;
  await cache.put(
    planKey({ ...plan, host: spec.host }),
    new Response(JSON.stringify(figures), { headers: { 'content-type': 'application/json' } }),
  );
}

/** A plan stored earlier for this variant, marked `stored`; null when there is none. */
export async function storedPlan(
  storage: CacheStorage,
  spec: { id: string; dtype: string; host?: string | undefined },
): Promise<DownloadPlan | null> {
  if (!(await storage.has(PLAN_CACHE))) return null;
  const cache = await storage.open(PLAN_CACHE);
  const response = await cache.match(planKey(spec));
  if (!response) return null;
  const data = planFigures(await response.json());
  if (!data || data.id !== spec.id || data.dtype !== spec.dtype) return null;
  return { ...data, warnings: [], stored: true };
}

/** A stored plan's figures, read field by field; null when the record is not one. */
function planFigures(data: unknown): Omit<DownloadPlan, 'warnings'> | null {
  if (!isObject(data)) return null;
  const { id, dtype, totalBytes, largestFile, missing } = data;
  if (typeof id !== 'string' || typeof dtype !== 'string' || typeof totalBytes !== 'number')
    return null;
  return {
    id,
    dtype,
    totalBytes,
    largestFile:
      isObject(largestFile) &&
      typeof largestFile.file === 'string' &&
      typeof largestFile.size === 'number'
        ? { file: largestFile.file, size: largestFile.size }
        : null,
    ...(isUnknownArray(missing)
      ? { missing: missing.filter((file) => typeof file === 'string') }
      : {}),
  };
}
