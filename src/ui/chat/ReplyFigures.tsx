/**
 * The speed line after a reply (loaded lazily with the first completed reply, not in the first
 * load): 'Generated N tokens in X seconds' with a 'Reset' link that clears the conversation, and a
 * detail line that separates prefill (prompt tokens, time to first token) from decode (tokens/s
 * after the first). After a Continue the figures are the continued part's, and say so: "+N tokens".
 */
import { formatStatsDetail, type GenerationStats } from '../../shared/generation-stats';

export interface ReplyFiguresProps {
  numTokens: number;
  seconds: number;
  stats: GenerationStats | null;
  /** The run went on with a reply cut at Max new tokens: its figures are the added part's. */
  continued: boolean;
  onReset: () => void;
}

export default function ReplyFigures({
  numTokens,
  seconds,
  stats,
  continued,
  onReset,
}: ReplyFiguresProps) {
  return (
    <div className="speed">
      <p>
        Generated {continued ? '+' : ''}
        {numTokens} tokens in {seconds.toFixed(2)} seconds.{' '}
        <button type="button" className="link-button" onClick={onReset}>
          Reset
        </button>
      </p>
      {stats && <p className="speed-detail">{formatStatsDetail(stats)}</p>}
    </div>
  );
}
