import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setupServer } from 'msw/node';
import { fetchModelRecord } from './fetch-model-record';
import { HubError } from './hub-error';
import { HUB_MOCK_IDS, HUB_MOCK_RETRY_AFTER, hubHandlers } from '../../mocks/hub-handlers';

const server = setupServer(...hubHandlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

async function failure(promise: Promise<unknown>): Promise<HubError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error('expected a HubError');
}

describe('fetchModelRecord (MSW Hub API)', () => {
  it('found: the validated record', async () => {
    const { record, issues } = await fetchModelRecord({ modelId: HUB_MOCK_IDS.found });
    expect(issues).toEqual([]);
    expect(record).toMatchObject({
      id: HUB_MOCK_IDS.found,
      pipeline_tag: 'text-classification',
      transformersInfo: { auto_model: 'AutoModelForSequenceClassification' },
    });
    expect(record).not.toHaveProperty('downloads');
  });

  it('404: not-found, naming the id', async () => {
    const error = await failure(fetchModelRecord({ modelId: HUB_MOCK_IDS.notFound }));
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(error.message).toBe(
      'Model "mock/not-found" was not found on the Hub (404). Check the id; private and gated models are not listed.',
    );
  });

  it('429: rate-limited, with the Retry-After seconds', async () => {
    const error = await failure(fetchModelRecord({ modelId: HUB_MOCK_IDS.rateLimited }));
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterSeconds: HUB_MOCK_RETRY_AFTER });
    expect(error.message).toBe('The Hub is rate limiting requests (429). Try again in 30 s.');
  });

  it('malformed body: invalid-json', async () => {
    const error = await failure(fetchModelRecord({ modelId: HUB_MOCK_IDS.malformed }));
    expect(error.kind).toBe('invalid-json');
    expect(error.message).toBe("The Hub's answer was not valid JSON.");
  });

  it('network down: network', async () => {
    const error = await failure(fetchModelRecord({ modelId: HUB_MOCK_IDS.networkDown }));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      'Could not reach the Hub (network error). Check the connection, or paste the model record as JSON.',
    );
  });

  it('500: http with the status', async () => {
    const error = await failure(fetchModelRecord({ modelId: HUB_MOCK_IDS.serverError }));
    expect(error).toMatchObject({ kind: 'http', status: 500 });
  });

  it('wrong-typed fields: the record, with the issues', async () => {
    const { record, issues } = await fetchModelRecord({ modelId: HUB_MOCK_IDS.wrongTypes });
    expect(record.tags).toEqual([]);
    expect(issues.map((i) => i.path)).toEqual([
      'tags',
      'config.peft.base_model_name_or_path',
      'config.peft.task_type',
    ]);
  });
});

describe('fetchModelRecord (injected fetch)', () => {
  it('asks GET {hub}/api/models/{owner}/{name}, encoded', async () => {
    const fetch = vi.fn(async () => Response.json({ id: 'a/b.c' }));
    await fetchModelRecord({ modelId: ' a/b.c ', fetch, hubUrl: 'http://hub.test' });
    expect(fetch).toHaveBeenCalledWith(
      'http://hub.test/api/models/a/b.c',
      expect.objectContaining({ headers: { Accept: 'application/json' } }),
    );
  });

  it.each(['', '../etc/passwd', 'a/b/c', 'a b', 'a/?x=1'])(
    'refuses the id %j before fetching',
    async (modelId) => {
      const fetch = vi.fn();
      const error = await failure(fetchModelRecord({ modelId, fetch }));
      expect(error.kind).toBe('invalid-id');
      expect(fetch).not.toHaveBeenCalled();
    },
  );

  it('Retry-After as an HTTP date, and none at all', async () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const at = new Date(now + 90_000).toUTCString();
    const dated = await failure(
      fetchModelRecord({
        modelId: 'a/b',
        now: () => now,
        fetch: async () => new Response('', { status: 429, headers: { 'Retry-After': at } }),
      }),
    );
    expect(dated.retryAfterSeconds).toBe(90);
    const bare = await failure(
      fetchModelRecord({ modelId: 'a/b', fetch: async () => new Response('', { status: 429 }) }),
    );
    expect(bare.message).toBe('The Hub is rate limiting requests (429). Try again in a minute.');
  });

  it('401 (private or gated) reads as not found', async () => {
    const error = await failure(
      fetchModelRecord({ modelId: 'a/b', fetch: async () => new Response('', { status: 401 }) }),
    );
    expect(error.kind).toBe('not-found');
  });

  it('an abort is passed on as is, not as a network error', async () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new DOMException('aborted', 'AbortError');
    await expect(
      fetchModelRecord({
        modelId: 'a/b',
        signal: controller.signal,
        fetch: () => Promise.reject(abort),
      }),
    ).rejects.toBe(abort);
  });
});
