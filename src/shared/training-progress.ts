/**
 * Training progress from log lines (the last match of 'current/total' in the log gives the
 * percentage, shown with two decimals). Pure: used by the training machine and the service.
 */

/** One `current/total` step count found in the log. */
export interface StepCount {
  current: number;
  total: number;
}

// Digits on both sides, not part of a decimal number ('0.5/1') or a longer path-like token
// ('2024/01/02' still matches its last pair, as a log timestamp would; the last match wins anyway).
const STEP_PATTERN = /(?<![\d.])(\d{1,15})\/(\d{1,15})(?![\d.])/g;

/** The last `current/total` match in `text`, or null; a total of 0 is not a step count. */
export function lastStepCount(text: string): StepCount | null {
  let found: StepCount | null = null;
  for (const match of text.matchAll(STEP_PATTERN)) {
    const current = Number(match[1]);
    const total = Number(match[2]);
    if (total > 0) found = { current, total };
  }
  return found;
}

/** The last `current/total` match over lines, searching from the last line backwards. */
export function lastStepCountInLines(lines: readonly string[]): StepCount | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined || !line.includes('/')) continue;
    const found = lastStepCount(line);
    if (found) return found;
  }
  return null;
}

/** current/total as a percentage, clamped to 0–100, rounded to two decimals. */
export function toPercent({ current, total }: StepCount): number {
  if (!(total > 0)) return 0;
  const ratio = Math.min(Math.max(current / total, 0), 1);
  return Math.round(ratio * 10_000) / 100;
}

/** The percentage shown with two decimals, as the spec's progress text. */
export function formatPercent(percent: number): string {
  return `${percent.toFixed(2)}%`;
}

export interface ProgressUpdate {
  /** 0–100, two decimals, never below the previous value. */
  percent: number;
  /** The step count that gave it, if any line had one. */
  step: StepCount | null;
  /** The last step count reached its total (spec: finished, polling stops). */
  reachedTotal: boolean;
}

/**
 * Progress after a poll: the last `current/total` in `lines` as a percentage, never going
 * backwards from `previous` (a log tail that scrolled past the step line keeps the old value).
 */
export function nextProgress(previous: number, lines: readonly string[]): ProgressUpdate {
  const step = lastStepCountInLines(lines);
  const percent = step ? Math.max(previous, toPercent(step)) : previous;
  return { percent, step, reachedTotal: step !== null && step.current >= step.total };
}
