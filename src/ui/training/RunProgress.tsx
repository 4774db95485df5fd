/**
 * A run's progress: the bar (100 % and "Saving…" while the trainer saves), and — once the service
 * reports loss points — the loss curve with its figures (LossCurve.tsx, its own chunk).
 */
import { lazy, Suspense } from 'react';
import type { EvalPoint, MetricPoint, RunInfo, TrainedModel } from '../../shared/training-api';
import { formatPercent } from '../../shared/training-progress';
import { NO_BROWSER_COPY } from '../../shared/training-messages';
import type { TrainingStatus } from '../../machines/trainingSelectors';

// The curve and its figures: a chunk of their own, fetched once there are points to draw.
const LossCurve = lazy(() => import('./LossCurve'));

export interface RunProgressProps {
  status: TrainingStatus;
  busy: boolean;
  percent: number;
  points: readonly MetricPoint[];
  evalPoints?: readonly EvalPoint[];
  run: RunInfo | null;
}

export function RunProgress({
  status,
  busy,
  percent,
  points,
  evalPoints = [],
  run,
}: RunProgressProps) {
  return (
    <>
      {busy && (
        <div
          className="progress training-progress"
          role="progressbar"
          aria-label="Training progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={formatPercent(percent)}
        >
          <div className="progress-fill" style={{ width: `${percent}%` }} />
          <span className="progress-label">{formatPercent(percent)}</span>
        </div>
      )}
      {status === 'saving' && (
        <p className="training-saving" role="status">
          Saving… The last step is done; the trainer is writing its result.
        </p>
      )}
      {points.length > 0 && (
        <Suspense fallback={<p className="training-hint">Loading the loss chart…</p>}>
          <LossCurve points={points} evals={evalPoints} run={run} busy={busy} />
        </Suspense>
      )}
    </>
  );
}

/** Why a finished run offers no "Load in chat", or the button. */
export function LoadInChat({
  run,
  model,
  onLoadInChat,
}: {
  run: RunInfo;
  model: TrainedModel | undefined;
  onLoadInChat?: ((model: TrainedModel) => void) | undefined;
}) {
  if (model && onLoadInChat)
    return (
      <p>
        <button type="button" className="training-load" onClick={() => onLoadInChat(model)}>
          Load in chat
        </button>{' '}
        <span className="training-hint">
          {model.name} (fine-tuned), served by the training service
        </span>
      </p>
    );
  if (run.model_error)
    return (
      <p className="training-hint">
        <strong>{NO_BROWSER_COPY}.</strong> {run.model_error}
      </p>
    );
  return null;
}
