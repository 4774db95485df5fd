import { formatTps } from '../format';

export interface SpeedLineProps {
  generating: boolean;
  tps: number | null;
  numTokens: number | null;
  seconds: number | null;
  onReset: () => void;
}

/**
 * Spec: tokens per second (two decimals) while generating; after completion
 * 'Generated N tokens in X seconds' with a 'Reset' link that clears the conversation.
 */
export function SpeedLine({ generating, tps, numTokens, seconds, onReset }: SpeedLineProps) {
  if (generating) {
    return <p className="speed">{tps !== null ? formatTps(tps) : '\u00a0'}</p>;
  }
  if (numTokens === null || seconds === null) return null;
  return (
    <p className="speed">
      Generated {numTokens} tokens in {seconds.toFixed(2)} seconds
      {tps !== null && <> ({formatTps(tps)})</>}.{' '}
      <button type="button" className="link-button" onClick={onReset}>
        Reset
      </button>
    </p>
  );
}
