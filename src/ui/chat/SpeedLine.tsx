import { formatStatsDetail, type GenerationStats } from '../../shared/generation-stats';
import { formatTps } from '../format';

export interface SpeedLineProps {
  generating: boolean;
  /** Decode tokens/s so far (generation-stats.ts). */
  tps: number | null;
  numTokens: number | null;
  seconds: number | null;
  stats: GenerationStats | null;
  onReset: () => void;
}

/**
 * Spec: tokens per second (two decimals) while generating; after completion
 * 'Generated N tokens in X seconds' with a 'Reset' link that clears the conversation. A detail line
 * separates prefill (prompt tokens, time to first token) from decode (tokens/s after the first).
 */
export function SpeedLine({ generating, tps, numTokens, seconds, stats, onReset }: SpeedLineProps) {
  if (generating) {
    return <p className="speed">{tps !== null ? formatTps(tps) : '\u00a0'}</p>;
  }
  if (numTokens === null || seconds === null) return null;
  return (
    <div className="speed">
      <p>
        Generated {numTokens} tokens in {seconds.toFixed(2)} seconds.{' '}
        <button type="button" className="link-button" onClick={onReset}>
          Reset
        </button>
      </p>
      {stats && <p className="speed-detail">{formatStatsDetail(stats)}</p>}
    </div>
  );
}
