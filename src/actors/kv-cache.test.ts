import { describe, expect, it } from 'vitest';
import { cacheCoversPrompt } from './kv-cache';

describe('cacheCoversPrompt', () => {
  const cached = [1n, 2n, 3n, 4n]; // the cache holds 1 2 3 (the last generated id is not in it)
  it('true when the new prompt starts with the cached tokens and goes on', () => {
    expect(cacheCoversPrompt(cached, [1n, 2n, 3n, 4n, 5n, 6n])).toBe(true);
    expect(cacheCoversPrompt(cached, [1n, 2n, 3n, 9n, 9n])).toBe(true);
  });
  it('false when a cached token differs (re-encoding changed the ids)', () => {
    expect(cacheCoversPrompt(cached, [1n, 7n, 3n, 4n, 5n])).toBe(false);
  });
  it('false when the prompt is not longer than the cache, or there is no cache', () => {
    expect(cacheCoversPrompt(cached, [1n, 2n, 3n])).toBe(false);
    expect(cacheCoversPrompt(null, [1n])).toBe(false);
  });
});
