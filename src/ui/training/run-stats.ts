/** Figures written beside the loss curve: last loss, steps per second, time left (pure). */
import type { MetricPoint, RunInfo } from '../../shared/training-api';

export interface RunStats {
  lastLoss: number | null;
  lastStep: number | null;
  /** Steps per second over the points so far; null with fewer than two timed points. */
  stepsPerSecond: number | null;
  /** Seconds left at that speed; null when unknown, 0 once the last step is done. */
  secondsLeft: number | null;
}

export function runStats(points: readonly MetricPoint[], run: RunInfo | null): RunStats {
  const last = points.at(-1);
  const first = points[0];
  const lastLoss = last?.loss ?? run?.last_loss ?? null;
  let stepsPerSecond: number | null = null;
  if (first && last && last.time > first.time && last.step > first.step)
    stepsPerSecond = (last.step - first.step) / (last.time - first.time);
  const current = Math.max(run?.current ?? 0, last?.step ?? 0);
  const total = run?.total ?? null;
  let secondsLeft: number | null = null;
  if (total !== null && current >= total) secondsLeft = 0;
  else if (total !== null && stepsPerSecond) secondsLeft = (total - current) / stepsPerSecond;
  return { lastLoss, lastStep: last?.step ?? null, stepsPerSecond, secondsLeft };
}

/** 4 significant digits: 1.234, 0.01234. */
export const formatLoss = (loss: number) => loss.toPrecision(4);

/** "2.5 steps/s", "0.12 steps/s". */
export function formatSpeed(stepsPerSecond: number): string {
  const digits = stepsPerSecond >= 10 ? 0 : stepsPerSecond >= 1 ? 1 : 2;
  return `${stepsPerSecond.toFixed(digits)} steps/s`;
}

/** "45 s", "3 min 05 s", "2 h 04 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
