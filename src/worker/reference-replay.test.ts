import { describe, expect, it } from 'vitest';
import { exportReportUrl, readTrainerReference } from './reference-replay';
import { MODEL_CACHE } from './model-storage';

const HOST = 'http://127.0.0.1:8000/';
const SPEC = { id: 'trained/harbour', dtype: 'q4', host: HOST };
const REPORT = {
  format: 2,
  reference: { prompt_ids: [1, 2], tokens: [3, 4], margins: [5, 6] },
  published: ['q4f16', 'q4'],
  variants: { q4: { tolerance: { clear_margin: 1.5 } } },
};

/** A Map-backed stand-in for CacheStorage: text bodies by URL. */
function fakeCaches() {
  const store = new Map<string, string>();
  const cache = {
    put: async (url: string, response: Response) => void store.set(url, await response.text()),
    match: async (url: string) => {
      const text = store.get(url);
      return text === undefined ? undefined : new Response(text);
    },
  };
  const caches = {
    has: async (name: string) => name === MODEL_CACHE && store.size > 0,
    open: async () => cache,
  } as unknown as CacheStorage;
  return { caches, store };
}

describe('readTrainerReference', () => {
  it("reads export.json from the model's own host, in the Hub layout, and keeps a copy", async () => {
    const asked: string[] = [];
    const { caches, store } = fakeCaches();
    const fetch = async (url: string) => {
      asked.push(url);
      return new Response(JSON.stringify(REPORT));
    };
    expect(await readTrainerReference(SPEC, { fetch, caches })).toMatchObject({
      promptIds: [1, 2],
      clearMargin: 1.5,
    });
    expect(asked).toEqual(['http://127.0.0.1:8000/trained/harbour/resolve/main/export.json']);
    expect([...store.keys()]).toEqual(asked);
    expect(exportReportUrl('http://h:1', 'a/b')).toBe('http://h:1/a/b/resolve/main/export.json');
  });

  it('offline: the copy kept at the last load is read', async () => {
    const { caches } = fakeCaches();
    const online = async () => new Response(JSON.stringify(REPORT));
    await readTrainerReference(SPEC, { fetch: online, caches });
    const offline = async (): Promise<Response> => {
      throw new TypeError('Failed to fetch');
    };
    expect(await readTrainerReference(SPEC, { fetch: offline, caches })).toMatchObject({
      tokens: [3, 4],
    });
    expect(await readTrainerReference(SPEC, { fetch: offline })).toEqual({
      missing: 'could not read export.json (Failed to fetch)',
    });
  });

  it('never asks the Hub (a trained model name must not leave the machine)', async () => {
    const asked: string[] = [];
    const fetch = async (url: string) => {
      asked.push(url);
      return new Response('{}');
    };
    for (const host of ['https://huggingface.co/', 'https://huggingface.co', undefined])
      expect(await readTrainerReference({ ...SPEC, host }, { fetch })).toEqual({
        missing: 'the model is not served by a training service',
      });
    expect(asked).toEqual([]);
  });

  it('an older export (no reference) or none at all says so', async () => {
    const old = async () => new Response(JSON.stringify({ format: 1, variants: {} }));
    expect(await readTrainerReference(SPEC, { fetch: old })).toEqual({
      missing: 'this export has no reference to replay (it was made before the check)',
    });
    const none = async () => new Response('not found', { status: 404 });
    expect(await readTrainerReference(SPEC, { fetch: none })).toEqual({
      missing: 'the training service has no export.json for this model',
    });
  });
});
