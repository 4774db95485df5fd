import { memo } from 'react';
import { failureCause } from './failure-cause';

/**
 * The summary of a failed run, leading with its cause. Loaded only when a run fails, so the
 * cause-finding rules stay out of the first-load bundle.
 */
function FailedRun({
  exitCode,
  message,
  lines,
}: {
  exitCode: number | null;
  message: string;
  lines: readonly string[];
}) {
  return (
    <p className="training-failed" role="alert">
      <strong>Training failed{exitCode !== null ? ` (exit code ${exitCode})` : ''}:</strong>{' '}
      {failureCause(lines) ?? message}
    </p>
  );
}

// memo: also keeps this chunk on the shared React chunk (no extra runtime split).
export default memo(FailedRun);
