import { describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { hubKeys, modelRecordQueryOptions } from './model-record-query-options';
import { HubError } from './hub-error';

describe('modelRecordQueryOptions', () => {
  it('keys by model id and fetches through the injected fetch', async () => {
    const fetch = vi.fn(async () => Response.json({ id: 'a/b', tags: ['x'] }));
    const options = modelRecordQueryOptions({ modelId: 'a/b', fetch });
    expect(options.queryKey).toEqual(hubKeys.model('a/b'));
    const client = new QueryClient();
    const data = await client.fetchQuery(options);
    expect(data.record).toMatchObject({ id: 'a/b', tags: ['x'] });
    await client.fetchQuery(options);
    expect(fetch).toHaveBeenCalledTimes(1); // cached: staleTime
  });

  it('is disabled for an empty id', () => {
    expect(modelRecordQueryOptions({ modelId: '  ' }).enabled).toBe(false);
  });

  it('retries server errors only', () => {
    const retry = modelRecordQueryOptions({ modelId: 'a/b' }).retry as (
      n: number,
      e: unknown,
    ) => boolean;
    expect(retry(0, new HubError('http', 'x', { status: 503 }))).toBe(true);
    expect(retry(2, new HubError('http', 'x', { status: 503 }))).toBe(false);
    expect(retry(0, new HubError('not-found', 'x', { status: 404 }))).toBe(false);
    expect(retry(0, new HubError('rate-limited', 'x', { status: 429 }))).toBe(false);
    expect(retry(0, new HubError('network', 'x'))).toBe(false);
  });
});
