import { describe, expect, it } from 'vitest';
import {
  formatPercent,
  lastStepCount,
  lastStepCountInLines,
  nextProgress,
  toPercent,
} from './training-progress';

describe('lastStepCount', () => {
  it('takes the last current/total match of a line', () => {
    expect(lastStepCount('step 3/120 loss 1.2 (epoch 1/3)')).toEqual({ current: 1, total: 3 });
    expect(lastStepCount('step 7/120')).toEqual({ current: 7, total: 120 });
  });

  it('ignores decimals, a zero total and text without a step count', () => {
    expect(lastStepCount('ratio 0.5/1.0 done')).toBeNull();
    expect(lastStepCount('0/0')).toBeNull();
    expect(lastStepCount('no progress here')).toBeNull();
  });

  it('reads a tqdm bar', () => {
    expect(lastStepCount(' 50%|█████     | 60/120 [00:10<00:10, 5.9it/s]')).toEqual({
      current: 60,
      total: 120,
    });
  });
});

describe('lastStepCountInLines', () => {
  it('searches from the last line backwards', () => {
    expect(lastStepCountInLines(['step 1/10', 'step 2/10', 'saving…'])).toEqual({
      current: 2,
      total: 10,
    });
    expect(lastStepCountInLines([])).toBeNull();
  });
});

describe('toPercent', () => {
  it('has two decimals', () => {
    expect(toPercent({ current: 1, total: 3 })).toBe(33.33);
    expect(toPercent({ current: 2, total: 3 })).toBe(66.67);
    expect(formatPercent(toPercent({ current: 1, total: 120 }))).toBe('0.83%');
  });

  it('never exceeds 100% nor goes below 0%', () => {
    expect(toPercent({ current: 150, total: 120 })).toBe(100);
    expect(toPercent({ current: 0, total: 120 })).toBe(0);
  });
});

describe('nextProgress', () => {
  it('never goes backwards', () => {
    const first = nextProgress(0, ['step 60/120']);
    expect(first.percent).toBe(50);
    const second = nextProgress(first.percent, ['step 30/120']);
    expect(second.percent).toBe(50);
    expect(second.reachedTotal).toBe(false);
  });

  it('keeps the previous value when the tail has no step line', () => {
    expect(nextProgress(42.5, ['saving the adapter'])).toMatchObject({ percent: 42.5, step: null });
  });

  it('reports reaching the total (and beyond) at 100%', () => {
    expect(nextProgress(90, ['step 120/120'])).toMatchObject({ percent: 100, reachedTotal: true });
    expect(nextProgress(90, ['step 130/120'])).toMatchObject({ percent: 100, reachedTotal: true });
  });
});
