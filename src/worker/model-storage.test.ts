import { describe, expect, it } from 'vitest';
import {
  MODEL_CACHE,
  PLAN_CACHE,
  deleteStoredModel,
  dtypeOfFile,
  listStoredModels,
  parseCacheKey,
  missingWeightFiles,
  planDownload,
  storePlan,
  storedPlan,
  type Registry,
} from './model-storage';
import { fitWarnings } from '../shared/storage';

/** A Map-backed stand-in for the browser's CacheStorage (enough of it for these functions). */
function fakeCaches(entries: Record<string, number>) {
  const store = new Map(Object.entries(entries).map(([url, size]) => [url, size]));
  const cache = {
    keys: async () => [...store.keys()].map((url) => new Request(url)),
    match: async (r: Request | string) => {
      const size = store.get(typeof r === 'string' ? r : r.url);
      return size === undefined ? undefined : new Response(new Uint8Array(size));
    },
    delete: async (r: Request | string) => store.delete(typeof r === 'string' ? r : r.url),
  };
  const storage = {
    has: async (name: string) => name === MODEL_CACHE,
    open: async () => cache,
  } as unknown as CacheStorage;
  return { storage, store };
}

const HOST = 'http://127.0.0.1:9/';
const url = (id: string, file: string) => `${HOST}${id}/resolve/main/${file}`;

describe('model storage', () => {
  it('parses cache keys and ignores entries that are not model files', () => {
    expect(parseCacheKey(url('a/b', 'onnx/model.onnx'))).toEqual({
      host: HOST,
      id: 'a/b',
      file: 'onnx/model.onnx',
    });
    expect(parseCacheKey('http://127.0.0.1:9/assets/ort.wasm')).toBeNull();
    expect(parseCacheKey('not a url')).toBeNull();
    expect(dtypeOfFile('onnx/model_q4f16.onnx')).toBe('q4f16');
    expect(dtypeOfFile('onnx/model.onnx')).toBe('fp32');
    expect(dtypeOfFile('tokenizer.json')).toBeNull();
  });

  it('lists each model with the bytes really cached, largest first', async () => {
    const { storage } = fakeCaches({
      [url('local/one', 'config.json')]: 100,
      [url('local/one', 'onnx/model.onnx')]: 5000,
      [url('local/two', 'config.json')]: 100,
      'http://127.0.0.1:9/ort-wasm.wasm': 99999,
    });
    expect(await listStoredModels(storage)).toEqual([
      { id: 'local/one', bytes: 5100, files: 2, hosts: [HOST] },
      { id: 'local/two', bytes: 100, files: 1, hosts: [HOST] },
    ]);
  });

  it('deletes with ModelRegistry.clear_cache under the right host, then sweeps what it missed', async () => {
    const { storage, store } = fakeCaches({
      [url('local/one', 'config.json')]: 1,
      [url('local/one', 'onnx/model.onnx')]: 1,
      [url('local/one', 'onnx/model_q4.onnx')]: 1,
      [url('local/two', 'config.json')]: 1,
    });
    const calls: unknown[] = [];
    let host = '';
    const registry = {
      clear_cache: async (id: string, options: unknown) => {
        calls.push({ id, options, host });
        store.delete(url(id, 'config.json'));
        store.delete(url(id, 'onnx/model.onnx'));
        return { filesDeleted: 2 };
      },
    } as unknown as Registry;
    const removed = await deleteStoredModel('local/one', {
      storage,
      registry,
      atHost: async (h, work) => {
        host = h;
        return work();
      },
    });
    expect(calls).toEqual([
      { id: 'local/one', options: { dtype: 'fp32', device: 'webgpu' }, host: HOST },
    ]);
    expect(removed).toBe(3);
    expect([...store.keys()]).toEqual([url('local/two', 'config.json')]);
  });

  it('plans a download from file metadata and warns, naming the limit', async () => {
    const registry = {
      get_files: async () => ['config.json', 'onnx/model_q4f16.onnx', 'onnx/model_q4f16.onnx_data'],
      get_file_metadata: async (_id: string, file: string) => ({
        exists: true,
        size: file.endsWith('_data') ? 3 * 1024 ** 3 : 1024,
      }),
    } as unknown as Registry;
    const plan = await planDownload(
      { id: 'big/model', dtype: 'q4f16' },
      {
        registry,
        limits: {
          maxBufferSize: 2 * 1024 ** 3,
          maxStorageBufferBindingSize: 1024 ** 3,
          shaderF16: false,
        },
        estimate: { usage: 0, quota: 2 * 1024 ** 3 },
      },
    );
    expect(plan.totalBytes).toBe(3 * 1024 ** 3 + 2048);
    expect(plan.largestFile?.file).toBe('onnx/model_q4f16.onnx_data');
    expect(plan.warnings.map((w) => w.kind)).toEqual(['buffer', 'quota', 'shader-f16']);
    expect(plan.warnings[0]?.message).toContain('maxStorageBufferBindingSize of 1.00GB');
    expect(plan.warnings[1]?.message).toContain('free browser storage (2.00GB)');
  });

  it('no warnings when everything fits', () => {
    expect(
      fitWarnings({
        dtype: 'q4',
        totalBytes: 10,
        largest: { file: 'onnx/model.onnx', size: 10 },
        limits: { maxBufferSize: 100, maxStorageBufferBindingSize: 100, shaderF16: false },
        freeBytes: 100,
      }),
    ).toEqual([]);
  });
});

/** Several named caches of string bodies, keyed by URL (enough of CacheStorage for plans and files). */
function namedCaches() {
  const caches = new Map<string, Map<string, string>>();
  const open = (name: string) => {
    const entries = caches.get(name) ?? new Map<string, string>();
    caches.set(name, entries);
    const urlOf = (r: Request | string) => (typeof r === 'string' ? r : r.url);
    return {
      keys: async () => [...entries.keys()].map((u) => new Request(u)),
      put: async (r: Request | string, response: Response) =>
        void entries.set(urlOf(r), await response.text()),
      match: async (r: Request | string) => {
        const body = entries.get(urlOf(r));
        return body === undefined ? undefined : new Response(body);
      },
      delete: async (r: Request | string) => entries.delete(urlOf(r)),
    };
  };
  const storage = {
    has: async (name: string) => caches.has(name),
    open: async (name: string) => open(name),
  } as unknown as CacheStorage;
  return { storage, caches };
}

describe('delete removes everything stored for the model', () => {
  // Delete left the model's entry in the plan cache (its id, size and files stayed in the browser).
  it('its plans go too, under every host and dtype; another model keeps its own', async () => {
    const { storage, caches } = namedCaches();
    const files = await storage.open(MODEL_CACHE);
    await files.put(url('trained/run-1', 'config.json'), new Response('{}'));
    const plan = (id: string, dtype: string) => ({
      id,
      dtype,
      totalBytes: 10,
      largestFile: null,
      warnings: [],
    });
    await storePlan(storage, { host: HOST }, plan('trained/run-1', 'q4'));
    await storePlan(storage, { host: 'http://127.0.0.1:8/' }, plan('trained/run-1', 'fp32'));
    await storePlan(storage, { host: HOST }, plan('trained/run-10', 'q4'));
    const registry = { clear_cache: async () => ({ filesDeleted: 0 }) } as unknown as Registry;
    const removed = await deleteStoredModel('trained/run-1', {
      storage,
      registry,
      atHost: async (_host, work) => work(),
    });
    expect(removed).toBe(1);
    expect([...(caches.get(MODEL_CACHE)?.keys() ?? [])]).toEqual([]);
    const left = [...(caches.get(PLAN_CACHE)?.keys() ?? [])];
    expect(left).toHaveLength(1);
    expect(await storedPlan(storage, { id: 'trained/run-10', dtype: 'q4', host: HOST })).not.toBe(
      null,
    );
    expect(await storedPlan(storage, { id: 'trained/run-1', dtype: 'q4', host: HOST })).toBeNull();
  });
});

describe('variants that exist, sizes kept for offline', () => {
  /** A host with these files (name → bytes); any other file is missing (a 404). */
  const hostWith = (files: Record<string, number>): Registry => ({
    get_files: async (_id, options) => [
      'config.json',
      `onnx/model_${options?.dtype ?? 'q4'}.onnx`,
      'generation_config.json',
    ],
    get_file_metadata: async (_id, file) =>
      file in files ? { exists: true, size: files[file] } : { exists: false },
    clear_cache: async () => ({ filesDeleted: 0 }),
  });
  const registry = hostWith({
    'config.json': 100,
    'generation_config.json': 50,
    'onnx/model_q4f16.onnx': 1_000,
  });

  it('names the weight files the host lacks; a variant it has lacks none', async () => {
    const spec = { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4' };
    expect(await missingWeightFiles(spec, registry)).toEqual(['onnx/model_q4.onnx']);
    expect(await missingWeightFiles({ ...spec, dtype: 'q4f16' }, registry)).toEqual([]);
  });

  it('the plan says what is missing, and its size is the bytes the host serves', async () => {
    const deps = { registry, limits: null, estimate: null };
    const q4 = await planDownload({ id: 'a/b', dtype: 'q4' }, deps);
    expect(q4.missing).toEqual(['onnx/model_q4.onnx']);
    const q4f16 = await planDownload({ id: 'a/b', dtype: 'q4f16' }, deps);
    expect(q4f16.missing).toEqual([]);
    expect(q4f16.totalBytes).toBe(1_150);
  });

  it('a stored plan answers for the same variant and host only (marked stored)', async () => {
    const entries = new Map<string, string>();
    const storage = {
      has: async () => entries.size > 0,
      open: async () => ({
        put: async (key: string, response: Response) =>
          void entries.set(key, await response.text()),
        match: async (key: string) => {
          const body = entries.get(key);
          return body === undefined ? undefined : new Response(body);
        },
      }),
    } as unknown as CacheStorage;
    const plan = await planDownload(
      { id: 'a/b', dtype: 'q4f16' },
      { registry, limits: null, estimate: null },
    );
    await storePlan(storage, { host: HOST }, plan);
    expect(await storedPlan(storage, { id: 'a/b', dtype: 'q4f16', host: HOST })).toEqual({
      ...plan,
      warnings: [],
      stored: true,
    });
    expect(await storedPlan(storage, { id: 'a/b', dtype: 'q4', host: HOST })).toBeNull();
    expect(await storedPlan(storage, { id: 'a/b', dtype: 'q4f16', host: 'http://x/' })).toBeNull();
  });
});
