/**
 * Training progress from log lines: only the trainer's own `step N/M` lines count (the whole line,
 * nothing before or after), and the last one gives the percentage, shown with two decimals. Other
 * `N/M` text in a log is not the run's progress: a library bar (`Loading weights 21/21`, tqdm's
 * `60/120 [00:10<00:10]`), a retry count (`Retry 5/5`), an export check (`tokens 17/17`). Pure: used
 * by the training machine and the service.
 */

/** One `step current/total` count found in the log. */
export interface StepCount {
  current: number;
  total: number;
}

const STEP_LINE = /^\s*step (\d{1,15})\/(\d{1,15})\s*$/;

/** The count of a `step N/M` line, or null for any other line; a total of 0 is not a count. */
export function stepLineCount(line: string): StepCount | null {
  const match = STEP_LINE.exec(line);
  if (!match) return null;
  const current = Number(match[1]);
  const total = Number(match[2]);
  return total > 0 ? { current, total } : null;
}

/** The last `step N/M` line's count, searching from the last line backwards. */
export function lastStepCountInLines(lines: readonly string[]): StepCount | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined || !line.includes('/')) continue;
    const found = stepLineCount(line);
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
 * Progress after a poll: the last `step N/M` line of `lines` as a percentage, never going
 * backwards from `previous` (a log tail that scrolled past the step line keeps the old value).
 */
export function nextProgress(previous: number, lines: readonly string[]): ProgressUpdate {
  const step = lastStepCountInLines(lines);
  const percent = step ? Math.max(previous, toPercent(step)) : previous;
  return { percent, step, reachedTotal: step !== null && step.current >= step.total };
}
