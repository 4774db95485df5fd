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

/** The percentage shown with two decimals, as the progress text (PRODUCT.md §6). */
export function formatPercent(percent: number): string {
  return `${percent.toFixed(2)}%`;
}

export interface ProgressUpdate {
  /** 0–100, two decimals, never below the previous value. */
  percent: number;
  /** The step count that gave it, if any line had one. */
  step: StepCount | null;
  /** The last step count reached its total (PRODUCT.md §4: finished, polling stops). */
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

/**
 * The base model's download, from the trainer's `{"download": {…}}` lines (training/
 * hub_download.py): bytes of this run's fetch (files already cached are `cachedBytes`), the file
 * being fetched and the count of files.
 */
export interface DownloadProgress {
  file: string | null;
  fileBytes: number;
  fileTotal: number;
  bytes: number;
  total: number;
  filesDone: number;
  files: number;
  cachedBytes: number;
  /** The mean rate of this run's fetch so far (0 until the trainer has measured one). */
  bytesPerSecond: number;
}

/** A field of a parsed JSON object (no schema library: this module is in the first load). */
const fieldOf = (object: object, key: string): unknown => Reflect.get(object, key);
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** One `{"download": …}` line's figures, or null for any other line (or a malformed one). */
export function downloadLine(line: string): DownloadProgress | null {
  if (!line.startsWith('{"download"')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const d = fieldOf(parsed, 'download');
  if (typeof d !== 'object' || d === null) return null;
  const file = fieldOf(d, 'file');
  if (file !== null && typeof file !== 'string') return null;
  const count = (key: string): number | null => {
    const value = fieldOf(d, key);
    return isCount(value) ? value : null;
  };
  const figures = {
    fileBytes: count('file_bytes'),
    fileTotal: count('file_total'),
    bytes: count('bytes'),
    total: count('total'),
    filesDone: count('files_done'),
    files: count('files'),
    cachedBytes: count('cached_bytes'),
  };
  const rate = fieldOf(d, 'bytes_per_second');
  const bytesPerSecond = isCount(rate) ? rate : 0;
  const { fileBytes, fileTotal, bytes, total, filesDone, files, cachedBytes } = figures;
  if (
    fileBytes === null ||
    fileTotal === null ||
    bytes === null ||
    total === null ||
    filesDone === null ||
    files === null ||
    cachedBytes === null
  )
    return null;
  return {
    file,
    fileBytes,
    fileTotal,
    bytes,
    total,
    filesDone,
    files,
    cachedBytes,
    bytesPerSecond,
  };
}

/**
 * The download under way in a log tail: the last download line, unless a `step N/M` line or
 * the end of the download (every file done) came after it. Null when none is under way.
 */
export function downloadInLines(lines: readonly string[]): DownloadProgress | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined) continue;
    if (stepLineCount(line)) return null;
    const download = downloadLine(line);
    if (download) return download.filesDone >= download.files ? null : download;
  }
  return null;
}
