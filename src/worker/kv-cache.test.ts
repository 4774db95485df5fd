import { describe, expect, it } from 'vitest';
import { TurnCache, cacheCoversPrompt } from './kv-cache';

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

describe('TurnCache', () => {
  const seq = (ids: bigint[]) => ({ tolist: () => [ids] });
  const tensor = () => ({
    disposed: false,
    dispose() {
      this.disposed = true;
    },
  });

  it('gives the kept cache to a prompt it covers, and counts the reuse', () => {
    const cache = new TurnCache();
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq([1n, 2n, 3n]) });
    expect(cache.take([1n, 2n, 3n, 4n])).toBe(past);
    expect(cache.reused).toBe(1);
  });
  it('drops (and frees) a cache the prompt does not start with', () => {
    const cache = new TurnCache();
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq([1n, 2n, 3n]) });
    expect(cache.take([9n, 2n, 3n, 4n])).toBeNull();
    expect(past.k.disposed).toBe(true);
    expect(cache.reused).toBe(0);
  });
  it('off for a model: never reuses, frees each turn cache at once', () => {
    const cache = new TurnCache(false);
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq([1n, 2n, 3n]) });
    expect(past.k.disposed).toBe(true);
    expect(cache.take([1n, 2n, 3n, 4n])).toBeNull();
  });
});
