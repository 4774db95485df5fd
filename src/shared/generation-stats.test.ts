import { describe, expect, it } from 'vitest';
import { GenerationClock, formatStatsDetail } from './generation-stats';

describe('GenerationClock', () => {
  it('separates prefill (time to first token) from decode (tokens after the first)', () => {
    let t = 1000;
    const clock = new GenerationClock(42, () => t);
    t += 210; // prefill
    clock.token();
    for (let i = 0; i < 95; i++) {
      t += 100;
      clock.token();
    }
    t += 5;
    const stats = clock.finish();
    expect(stats).toEqual({
      promptTokens: 42,
      cachedTokens: 0,
      ttft: 0.21,
      numTokens: 96,
      seconds: (210 + 9500 + 5) / 1000,
      decodeTps: 10,
    });
    expect(formatStatsDetail(stats)).toBe(
      'Prefill: 42 prompt tokens, first token after 0.21 s · Decode: 10.00 tokens/s',
    );
  });

  it('says how many prompt tokens came from the KV cache', () => {
    let t = 0;
    const clock = new GenerationClock(42, () => t);
    clock.cachedTokens = 30;
    t = 210;
    clock.token();
    expect(formatStatsDetail(clock.finish())).toBe(
      'Prefill: 42 prompt tokens (30 cached), first token after 0.21 s · Decode: too few tokens to measure',
    );
  });

  it('no tokens: no TTFT and no decode rate, stated in words', () => {
    let t = 0;
    const clock = new GenerationClock(7, () => t);
    t = 50;
    const stats = clock.finish();
    expect(stats.ttft).toBeNull();
    expect(stats.decodeTps).toBeNull();
    expect(formatStatsDetail(stats)).toBe(
      'Prefill: 7 prompt tokens, no token generated · Decode: too few tokens to measure',
    );
  });

  it('one token: TTFT but no decode rate', () => {
    let t = 0;
    const clock = new GenerationClock(3, () => t);
    t = 300;
    clock.token();
    expect(clock.decodeTps()).toBeNull();
    expect(clock.finish().ttft).toBe(0.3);
  });
});
