import { memo } from 'react';
import { failureCause } from './failure-cause';

/**
 * The summary of a failed run, leading with its cause, and **Resume** when the run left a
 * checkpoint. Loaded only when a run fails, so the cause-finding rules stay out of the first-load
 * bundle.
 */
function FailedRun({
  exitCode,
  message,
  lines,
  resumeStep = null,
  onResume,
  busy = false,
}: {
  exitCode: number | null;
  message: string;
  lines: readonly string[];
  /** The step of the checkpoint a resume starts from; null: nothing to resume from. */
  resumeStep?: number | null | undefined;
  onResume?: (() => void) | undefined;
  busy?: boolean | undefined;
}) {
  return (
    <div className="training-failed-run">
      <p className="training-failed" role="alert">
        <strong>Training failed{exitCode !== null ? ` (exit code ${exitCode})` : ''}:</strong>{' '}
        {failureCause(lines) ?? message}
      </p>
      {resumeStep !== null && onResume && (
        <p>
          <button type="button" className="training-resume" disabled={busy} onClick={onResume}>
            Resume
          </button>{' '}
          <span className="training-hint">
            from its checkpoint at step {resumeStep}, in the same output folder
          </span>
        </p>
      )}
    </div>
  );
}

// memo: also keeps this chunk on the shared React chunk (no extra runtime split).
export default memo(FailedRun);
