/**
 * Every figure of a generation, defined once (the worker measures, the UI and the benchmark read):
 *
 * - `promptTokens`: tokens of the prompt after the chat template (prefill input).
 * - `cachedTokens`: how many of them came from the previous turn's KV cache (not computed again).
 * - `ttft`: seconds from the start of the generation to the first generated token (prefill time).
 * - `numTokens`: tokens generated, the first included.
 * - `seconds`: seconds from the start of the generation to its end (prefill included).
 * - `decodeTps`: tokens after the first ÷ seconds after the first token (decode speed); null with
 *   fewer than two tokens.
 *
 * So "Generated N tokens in X seconds" uses `numTokens` and `seconds`, and the tokens/s shown while
 * generating is `decodeTps` so far: the same definition as the detail line after completion.
 */
export interface GenerationStats {
  promptTokens: number;
  /** Absent in replies saved before it was measured. */
  cachedTokens?: number;
  ttft: number | null;
  numTokens: number;
  seconds: number;
  decodeTps: number | null;
}

/** Measures one generation. `now` is in milliseconds (performance.now in the worker). */
export class GenerationClock {
  private readonly started: number;
  private firstAt: number | null = null;
  private lastAt: number | null = null;
  numTokens = 0;
  /** Set once the KV cache is taken (after the clock starts: cutting the cache is prefill time). */
  cachedTokens = 0;

  constructor(
    private readonly promptTokens: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  /** One generated token. */
  token(): void {
    const t = this.now();
    this.firstAt ??= t;
    this.lastAt = t;
    this.numTokens += 1;
  }

  /** Decode tokens/s so far (tokens after the first ÷ time from the first to the latest). */
  decodeTps(): number | null {
    if (this.firstAt === null || this.lastAt === null || this.numTokens < 2) return null;
    const ms = this.lastAt - this.firstAt;
    return ms > 0 ? ((this.numTokens - 1) / ms) * 1000 : null;
  }

  /** The figures at the end of the generation. */
  finish(): GenerationStats {
    const end = this.now();
    return {
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens,
      ttft: this.firstAt === null ? null : (this.firstAt - this.started) / 1000,
      numTokens: this.numTokens,
      seconds: (end - this.started) / 1000,
      decodeTps: this.decodeTps(),
    };
  }
}

/** "Prefill: 42 prompt tokens, first token after 0.21 s · Decode: 14.82 tokens/s". */
export function formatStatsDetail(stats: GenerationStats): string {
  const cached = stats.cachedTokens ? ` (${stats.cachedTokens} cached)` : '';
  const prompt = `Prefill: ${stats.promptTokens} prompt tokens${cached}`;
  const prefill =
    stats.ttft === null
      ? `${prompt}, no token generated`
      : `${prompt}, first token after ${stats.ttft.toFixed(2)} s`;
  const decode =
    stats.decodeTps === null
      ? 'Decode: too few tokens to measure'
      : `Decode: ${stats.decodeTps.toFixed(2)} tokens/s`;
  return `${prefill} · ${decode}`;
}
