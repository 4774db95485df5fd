import { Suspense, lazy } from 'react';
import type { GenerationStats } from '../../shared/generation-stats';
import { formatTps } from '../format';

// The figures after a reply load with the first completed reply, not with the first screen.
const ReplyFigures = lazy(() => import('./ReplyFigures'));

export interface SpeedLineProps {
  generating: boolean;
  /** Decode tokens/s so far (generation-stats.ts). */
  tps: number | null;
  numTokens: number | null;
  seconds: number | null;
  stats: GenerationStats | null;
  /** The last run continued a reply cut at Max new tokens (its figures are the added part). */
  continued?: boolean;
  onReset: () => void;
}

/**
 * Spec: tokens per second (two decimals) while generating; after completion 'Generated N tokens in
 * X seconds' with a 'Reset' link and the prefill / decode detail line (ReplyFigures).
 */
export function SpeedLine({ generating, tps, numTokens, seconds, ...rest }: SpeedLineProps) {
  if (generating) {
    return <p className="speed">{tps !== null ? formatTps(tps) : '\u00a0'}</p>;
  }
  if (numTokens === null || seconds === null) return null;
  return (
    <Suspense fallback={null}>
      <ReplyFigures
        numTokens={numTokens}
        seconds={seconds}
        stats={rest.stats}
        continued={rest.continued ?? false}
        onReset={rest.onReset}
      />
    </Suspense>
  );
}
