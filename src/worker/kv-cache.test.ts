import { DynamicCache, Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { MIN_KEPT_TOKENS, TurnCache, cropDynamicCache, reusablePrefix } from './kv-cache';

describe('reusablePrefix', () => {
  const cached = [1n, 2n, 3n, 4n]; // the cache holds 1 2 3 (the last generated id is not in it)
  it('all of the cache when the new prompt starts with the cached tokens and goes on', () => {
    expect(reusablePrefix(cached, [1n, 2n, 3n, 4n, 5n, 6n])).toBe(3);
    expect(reusablePrefix(cached, [1n, 2n, 3n, 9n, 9n])).toBe(3);
  });
  it('up to the first token that differs (re-encoding changed an id)', () => {
    expect(reusablePrefix(cached, [1n, 7n, 3n, 4n, 5n])).toBe(1);
    expect(reusablePrefix(cached, [9n, 2n, 3n, 4n, 5n])).toBe(0);
  });
  it('leaves the prompt at least one token to compute', () => {
    expect(reusablePrefix(cached, [1n, 2n, 3n])).toBe(2);
    expect(reusablePrefix(cached, [1n])).toBe(0);
  });
  it('nothing without a cache', () => {
    expect(reusablePrefix(null, [1n, 2n])).toBe(0);
    expect(reusablePrefix([1n], [1n, 2n])).toBe(0);
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
  const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => BigInt(from + i));
  /** A crop that records its calls and gives a new cache tagged with the length. */
  function fakeCrop(result: 'cut' | 'cannot' = 'cut') {
    const calls: number[] = [];
    const crop = (_past: { k: ReturnType<typeof tensor> }, length: number) => {
      calls.push(length);
      return Promise.resolve(result === 'cut' ? { k: tensor(), length } : null);
    };
    return { calls, crop };
  }

  it('gives the kept cache to a prompt it covers, and counts the reuse', async () => {
    const cache = new TurnCache();
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq([1n, 2n, 3n]) });
    expect(await cache.take([1n, 2n, 3n, 4n])).toEqual({ past, tokens: 2 });
    expect(cache.reused).toBe(1);
    expect(cache.cropped).toBe(0);
  });
  it('without a crop: drops (and frees) a cache the prompt does not wholly start with', async () => {
    const cache = new TurnCache();
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq(ids(40)) });
    expect(await cache.take([...ids(30), 99n, 100n])).toEqual({ past: null, tokens: 0 });
    expect(past.k.disposed).toBe(true);
    expect(cache.reused).toBe(0);
  });
  it('with a crop: cuts the cache at the first differing token and frees the old one', async () => {
    const { calls, crop } = fakeCrop();
    const cache = new TurnCache(true, crop);
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq(ids(40)) });
    const taken = await cache.take([...ids(30), 99n, 100n]);
    expect(calls).toEqual([30]);
    expect(taken.tokens).toBe(30);
    expect(taken.past).toMatchObject({ length: 30 });
    expect(past.k.disposed).toBe(true);
    expect([cache.reused, cache.cropped]).toEqual([1, 1]);
    // A failed generation clears the cut cache too.
    cache.clear();
    expect(taken.past?.k.disposed).toBe(true);
  });
  it(`drops instead of cutting when fewer than ${MIN_KEPT_TOKENS} tokens would be kept`, async () => {
    const { calls, crop } = fakeCrop();
    const cache = new TurnCache(true, crop);
    cache.keep({ past_key_values: { k: tensor() }, sequences: seq(ids(40)) });
    const short = [...ids(MIN_KEPT_TOKENS - 1), 99n, 100n];
    expect(await cache.take(short)).toEqual({ past: null, tokens: 0 });
    expect(calls).toEqual([]);
  });
  it('drops (and frees) a cache the crop cannot cut', async () => {
    const { crop } = fakeCrop('cannot');
    const cache = new TurnCache(true, crop);
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq(ids(40)) });
    expect(await cache.take([...ids(30), 99n])).toEqual({ past: null, tokens: 0 });
    expect(past.k.disposed).toBe(true);
    expect(cache.reused).toBe(0);
  });
  it('off for a model: never reuses, frees each turn cache at once', async () => {
    const cache = new TurnCache(false, fakeCrop().crop);
    const past = { k: tensor() };
    cache.keep({ past_key_values: past, sequences: seq([1n, 2n, 3n]) });
    expect(past.k.disposed).toBe(true);
    expect(await cache.take([1n, 2n, 3n, 4n])).toEqual({ past: null, tokens: 0 });
  });
});

describe('cropDynamicCache', () => {
  /** [1, 2 heads, 5 tokens, 3] with element i = i, in the type's array. */
  function layer(type: 'float32' | 'float16') {
    const data = type === 'float32' ? new Float32Array(30) : new Uint16Array(30);
    for (let i = 0; i < data.length; i++) data[i] = i;
    return new Tensor(type, data, [1, 2, 5, 3]);
  }

  it('keeps the first tokens of every head, as Tensor.slice would, in the same array type', async () => {
    for (const type of ['float32', 'float16'] as const) {
      const key = layer(type);
      const past = new DynamicCache({
        'past_key_values.0.key': key,
        'past_key_values.0.value': layer(type),
      });
      const cut = await cropDynamicCache(past, 2);
      const expected = key.slice(null, null, [0, 2], null);
      expect(cut?.get_seq_length()).toBe(2);
      const cutKey = (cut as unknown as Record<string, Tensor>)['past_key_values.0.key'];
      expect(cutKey?.dims).toEqual([1, 2, 2, 3]);
      expect(cutKey?.type).toBe(type);
      const got: unknown = cutKey?.data;
      const sliced: unknown = expected.data;
      const firstTwo = [0, 1, 2, 3, 4, 5, 15, 16, 17, 18, 19, 20];
      // toEqual compares a typed array's type too.
      expect(got).toEqual(
        type === 'float32' ? new Float32Array(firstTwo) : new Uint16Array(firstTwo),
      );
      expect(got).toEqual(sliced);
    }
  });

  it('gives null for a cache with other state (a convolution or SSM state cannot be cut)', async () => {
    const past = new DynamicCache({
      'past_key_values.0.key': layer('float32'),
      'past_conv.0': new Tensor('float32', new Float32Array(6), [1, 2, 3]),
    });
    expect(await cropDynamicCache(past, 2)).toBeNull();
  });
});
