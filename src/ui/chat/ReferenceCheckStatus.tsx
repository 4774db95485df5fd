import { memo } from 'react';
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
}: {
  check: CheckStatus;
  /** Whose check it is, where several show (Compare's "A", "B"). */
  label?: string | undefined;
  /** Offers "Load q4 instead" when the check names another variant that runs on this GPU. */
  onLoadAlternative?: ((dtype: string) => void) | undefined;
}) {
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
  return (
    <div className="reference-check-row">
      {status}
      <button type="button" onClick={() => onLoadAlternative(alternative)}>
        Load {alternative} instead
      </button>
    </div>
  );
});
