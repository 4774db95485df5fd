import { describe, expect, it } from 'vitest';
import {
  FALLBACK_UPDATE_INTERVAL_MS,
  UPDATE_INTERVAL_MS,
  createUpdateBatcher,
  updateIntervalFor,
} from './update-batcher';

const update = (output: string, channel: 'answer' | 'thinking' = 'answer', numTokens = 1) =>
  ({ status: 'update', output, numTokens, channel }) as const;

describe('createUpdateBatcher', () => {
  it('posts the first piece at once, joins the next within the interval, flushes before complete', () => {
    let now = 0;
    const posted: unknown[] = [];
    const batcher = createUpdateBatcher<{ status: 'complete' }>(
      (m) => posted.push(m),
      32,
      () => now,
    );
    batcher.push(update('Hel', 'answer', 1));
    now = 10;
    batcher.push(update('lo', 'answer', 2));
    now = 20;
    batcher.push(update(' you', 'answer', 3));
    expect(posted).toEqual([update('Hel', 'answer', 1)]);
    batcher.push({ status: 'complete' });
    expect(posted).toEqual([
      update('Hel', 'answer', 1),
      update('lo you', 'answer', 3),
      { status: 'complete' },
    ]);
  });

  it('posts once the interval has passed; a change of channel never joins two channels', () => {
    let now = 0;
    const posted: unknown[] = [];
    const batcher = createUpdateBatcher(
      (m) => posted.push(m),
      32,
      () => now,
    );
    batcher.push(update('a', 'thinking'));
    now = 5;
    batcher.push(update('b', 'thinking'));
    batcher.push(update('c', 'answer'));
    now = 40;
    batcher.push(update('d', 'answer'));
    expect(posted).toEqual([
      update('a', 'thinking'),
      update('b', 'thinking'),
      update('cd', 'answer'),
    ]);
  });

  it("posts half as often on a fallback (software) adapter, whose compute shares the page's cores", () => {
    expect(updateIntervalFor({ fallback: false })).toBe(UPDATE_INTERVAL_MS);
    expect(updateIntervalFor(null)).toBe(UPDATE_INTERVAL_MS);
    expect(updateIntervalFor({ fallback: true })).toBe(FALLBACK_UPDATE_INTERVAL_MS);
    expect(FALLBACK_UPDATE_INTERVAL_MS).toBe(2 * UPDATE_INTERVAL_MS);
  });
});
