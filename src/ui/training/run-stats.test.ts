import { describe, expect, it } from 'vitest';
import { formatDuration, formatLoss, formatSpeed, runStats } from './run-stats';
import type { MetricPoint, RunInfo } from '../../shared/training-api';

const point = (step: number, loss: number, time: number): MetricPoint => ({
  seq: step,
  step,
  loss,
  learning_rate: null,
  epoch: null,
  grad_norm: null,
  time,
});
const run = (patch: Partial<RunInfo>) =>
  ({ current: null, total: null, last_loss: null, ...patch }) as RunInfo;

describe('runStats', () => {
  it('speed from the first and last point, time left from the steps still to go', () => {
    const stats = runStats([point(10, 2, 5), point(30, 1.2, 15)], run({ current: 30, total: 130 }));
    expect(stats).toEqual({ lastLoss: 1.2, lastStep: 30, stepsPerSecond: 2, secondsLeft: 50 });
  });

  it('unknown speed with one point; 0 s left once the last step is done', () => {
    expect(runStats([point(1, 2, 1)], run({ current: 1, total: 10 }))).toMatchObject({
      stepsPerSecond: null,
      secondsLeft: null,
    });
    expect(runStats([point(10, 0.5, 9)], run({ current: 10, total: 10 })).secondsLeft).toBe(0);
  });

  it("no points: the run's last loss, nothing else", () => {
    expect(runStats([], run({ last_loss: 0.75 }))).toEqual({
      lastLoss: 0.75,
      lastStep: null,
      stepsPerSecond: null,
      secondsLeft: null,
    });
    expect(runStats([], null).lastLoss).toBeNull();
  });
});

describe('formatting', () => {
  it('loss, speed and durations read as people write them', () => {
    expect(formatLoss(1.23456)).toBe('1.235');
    expect(formatLoss(0.0123456)).toBe('0.01235');
    expect(formatSpeed(2.345)).toBe('2.3 steps/s');
    expect(formatSpeed(0.1234)).toBe('0.12 steps/s');
    expect(formatSpeed(25.4)).toBe('25 steps/s');
    expect(formatDuration(44.6)).toBe('45 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(7440)).toBe('2 h 04 min');
  });
});
