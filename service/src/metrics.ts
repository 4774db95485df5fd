/**
 * Metric lines trainers already print, turned into points for the loss curve:
 *  - the Hugging Face Trainer's log dict, a Python repr:
 *    `{'loss': 1.2345, 'grad_norm': 0.81, 'learning_rate': 0.0002, 'epoch': 0.25}`
 *  - JSON lines with the same keys: `{"loss": 1.2345, "learning_rate": 0.0002, "step": 10}`.
 * A line counts only when it is one such object and has a finite numeric `loss`; anything else
 * (the final `train_runtime` summary, malformed text) is ignored. Held-out loss lines,
 * `{"eval_loss": 1.2, "step": 40}` (and the Trainer's eval dict), are eval points of their own.
 * A run keeps at most MAX_METRIC_POINTS points in memory: past that, every other point is dropped
 * and only every `stride`-th new one is kept, so a 10⁶-step run still draws its whole curve.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import * as z from 'zod/mini';
import { isRecord } from '../../src/shared/guards';
import {
  MAX_METRIC_POINTS,
  MetricPointSchema,
  type EvalPoint,
  type MetricPoint,
  type MetricsResponse,
} from '../../src/shared/training-api';

export interface ParsedMetrics {
  loss: number;
  learning_rate: number | null;
  epoch: number | null;
  grad_norm: number | null;
  step: number | null;
}

const PY_NUMBER = String.raw`[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)`;
const PY_PAIR = String.raw`'[A-Za-z_][A-Za-z0-9_]*'\s*:\s*${PY_NUMBER}`;
const PY_DICT = new RegExp(String.raw`^\{\s*${PY_PAIR}(?:\s*,\s*${PY_PAIR})*\s*,?\s*\}$`);
const PY_PAIRS = new RegExp(String.raw`'([A-Za-z_][A-Za-z0-9_]*)'\s*:\s*(${PY_NUMBER})`, 'g');

function pythonDict(text: string): Record<string, unknown> | null {
  if (!PY_DICT.test(text)) return null;
  const out: Record<string, unknown> = {};
  for (const match of text.matchAll(PY_PAIRS)) out[match[1] ?? ''] = Number(match[2]);
  return out;
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

const finite = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function metricDict(line: string): Record<string, unknown> | null {
  const text = line.trim();
  if (text.length < 10 || text.length > 4096 || text[0] !== '{' || !text.endsWith('}')) return null;
  return text.includes('"') ? jsonObject(text) : pythonDict(text);
}

/** A held-out loss line: `eval_loss` and optionally `step`; null when it is not one. */
export function parseEvalLine(line: string): { loss: number; step: number | null } | null {
  const dict = metricDict(line);
  const loss = dict ? finite(dict.eval_loss) : null;
  if (!dict || loss === null) return null;
  const step = finite(dict.step);
  return { loss, step: step !== null && step >= 0 ? Math.round(step) : null };
}

/** Held-out loss points kept per run (a trainer prints one every few steps). */
const MAX_EVAL_POINTS = 10_000;

/** The metrics in one output line, or null when it is not a metric line. */
export function parseMetricLine(line: string): ParsedMetrics | null {
  const dict = metricDict(line);
  if (!dict) return null;
  const loss = finite(dict.loss);
  if (loss === null) return null;
  const step = finite(dict.step);
  return {
    loss,
    learning_rate: finite(dict.learning_rate),
    epoch: finite(dict.epoch),
    grad_norm: finite(dict.grad_norm),
    step: step !== null && step >= 0 ? Math.round(step) : null,
  };
}

/** A run's metric points: bounded in memory, every point appended to `metrics.jsonl`. */
export class MetricsStore {
  private points: MetricPoint[] = [];
  /** Points recognised so far (the next seq). */
  seen = 0;
  stride = 1;
  last: MetricPoint | null = null;
  /** Held-out loss points, oldest first (the newest MAX_EVAL_POINTS). */
  readonly evals: EvalPoint[] = [];
  /** Held-out points recognised so far (the next eval seq). */
  evalSeen = 0;
  private out: WriteStream | null = null;

  constructor(
    private readonly file: string,
    private readonly capacity = MAX_METRIC_POINTS,
  ) {}

  openForWriting(): void {
    this.out = createWriteStream(this.file, { flags: 'a' });
  }

  /** Rebuilds the store from its file (a run from before a restart, or evicted from memory). */
  static async load(file: string, capacity = MAX_METRIC_POINTS): Promise<MetricsStore> {
    const store = new MetricsStore(file, capacity);
    const exists = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) return store;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      const value = jsonObject(line);
      if (!value) continue;
      const evalLoss = finite(value.eval_loss);
      if (evalLoss !== null)
        store.keepEval({
          seq: store.evalSeen,
          step: finite(value.step) ?? 0,
          loss: evalLoss,
          time: finite(value.time) ?? 0,
        });
      else {
        const point = z.safeParse(MetricPointSchema, value);
        if (point.success) store.keep(point.data);
      }
    }
    return store;
  }

  /** Adds a point for a parsed line; `step` falls back to the run's last `current`. */
  add(parsed: ParsedMetrics, fallbackStep: number | null, seconds: number): MetricPoint {
    const point: MetricPoint = {
      seq: this.seen,
      step: parsed.step ?? fallbackStep ?? this.seen + 1,
      loss: parsed.loss,
      learning_rate: parsed.learning_rate,
      epoch: parsed.epoch,
      grad_norm: parsed.grad_norm,
      time: Math.round(seconds * 1000) / 1000,
    };
    this.keep(point);
    this.out?.write(`${JSON.stringify(point)}\n`);
    return point;
  }

  /** Adds a held-out loss point; `step` falls back to the run's last `current`. */
  addEval(
    parsed: { loss: number; step: number | null },
    fallbackStep: number | null,
    seconds: number,
  ): EvalPoint {
    const point: EvalPoint = {
      seq: this.evalSeen,
      step: parsed.step ?? fallbackStep ?? 0,
      loss: parsed.loss,
      time: Math.round(seconds * 1000) / 1000,
    };
    this.keepEval(point);
    this.out?.write(
      `${JSON.stringify({ eval_loss: point.loss, step: point.step, time: point.time })}\n`,
    );
    return point;
  }

  private keepEval(point: EvalPoint): void {
    this.evalSeen = point.seq + 1;
    if (this.evals.length >= MAX_EVAL_POINTS) this.evals.shift();
    this.evals.push(point);
  }

  private keep(point: MetricPoint): void {
    this.seen = point.seq + 1;
    this.last = point;
    if (point.seq % this.stride !== 0) return;
    if (this.points.length >= this.capacity) {
      this.stride *= 2;
      this.points = this.points.filter((p) => p.seq % this.stride === 0);
      if (point.seq % this.stride !== 0) return;
    }
    this.points.push(point);
  }

  /** How many points are held in memory. */
  get size(): number {
    return this.points.length;
  }

  /**
   * Loss points with seq > `after` (binary search: cheap for live polling) and held-out points
   * with seq > `evalAfter` (the newest first found from the end: a poll usually has none or one).
   */
  since(after = -1, evalAfter = -1): MetricsResponse {
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.points[mid]?.seq ?? 0) <= after) lo = mid + 1;
      else hi = mid;
    }
    const points = this.points.slice(lo);
    // The latest point is always returned, even when thinning would have skipped it.
    const last = this.last;
    if (last && last.seq > after && points.at(-1)?.seq !== last.seq) points.push(last);
    return {
      points,
      next: points.at(-1)?.seq ?? after,
      seen: this.seen,
      stride: this.stride,
      eval: this.evalsAfter(evalAfter),
    };
  }

  private evalsAfter(after: number): EvalPoint[] {
    let from = this.evals.length;
    while (from > 0 && (this.evals[from - 1]?.seq ?? -1) > after) from -= 1;
    return this.evals.slice(from);
  }

  async close(): Promise<void> {
    const out = this.out;
    this.out = null;
    if (out) await new Promise<void>((ok) => out.end(ok));
  }
}
