import { memo, useState } from 'react';
import type { CheckStatus } from '../../shared/reference-check';
import { referenceCheckText } from '../../shared/reference-check-text';

/**
 * "Checked on this GPU": the trainer's reference replayed after a trained model loaded, shown
 * beside the model (the chat's model bar, each model of Compare). A status, never an alert: a
 * divergence is a visible warning, and the model stays loaded and usable. Its own chunk: only a
 * model the trainer exported has one.
 */
export const ReferenceCheckStatus = memo(function ReferenceCheckStatus({
  check,
  label,
  onLoadAlternative,
  generating = false,
  onStopReply,
}: {
  check: CheckStatus;
  /** Whose check it is, where several show (Compare's "A", "B"). */
  label?: string | undefined;
  /** Offers "Load q4 instead" when the check names another variant that runs on this GPU. */
  onLoadAlternative?: ((dtype: string) => void) | undefined;
  /** A reply is streaming: loading stops it, after asking (as the picker's Load does). */
  generating?: boolean | undefined;
  onStopReply?: (() => void) | undefined;
}) {
  const [asking, setAsking] = useState(false);
  if (!check) return null;
  const prefix = label ? `${label}: ` : '';
  if (check.result === 'checking')
    return (
      <p role="status" className="reference-check reference-check-neutral">
        {prefix}Checking on this GPU: replaying the trainer&apos;s answer…
      </p>
    );
  const { tone, headline, detail } = referenceCheckText(check);
  const alternative = check.result === 'diverged' ? check.alternative : null;
  const status = (
    <p role="status" className={`reference-check reference-check-${tone}`}>
      {tone !== 'neutral' && (
        <span className="reference-check-icon" aria-hidden="true">
          {tone === 'ok' ? '✓' : '⚠'}
        </span>
      )}
      <span className="reference-check-text">
        {prefix}
        {headline}
        {detail && <span className="reference-check-detail">{detail}</span>}
      </span>
    </p>
  );
  if (!alternative || !onLoadAlternative) return status;
  const load = () => {
    setAsking(false);
    if (generating) onStopReply?.();
    onLoadAlternative(alternative);
  };
  return (
    <div className="reference-check-row">
      {status}
      {asking && generating ? (
        <div className="switch-confirm" role="group" aria-label="Stop the reply?">
          <p>A reply is being written. Stop it and load {alternative}?</p>
          <button type="button" className="primary" onClick={load}>
            Stop reply and load
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Keep writing
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="secondary"
          onClick={generating ? () => setAsking(true) : load}
        >
          Load {alternative} instead
        </button>
      )}
    </div>
  );
});
