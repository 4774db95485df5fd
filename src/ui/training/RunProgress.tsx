/**
 * A run's progress: the bar (100 % and "Saving…" while the trainer saves), and — once the service
 * reports loss points — the loss curve with its figures (LossCurve.tsx, its own chunk).
 */
import { lazy, Suspense } from 'react';
import type { EvalPoint, MetricPoint, RunInfo, TrainedModel } from '../../shared/training-api';
import {
  downloadInLines,
  formatPercent,
  type DownloadProgress,
} from '../../shared/training-progress';
import { formatBytes } from '../../shared/format-bytes';
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
  /** The last log lines: a base model download under way is read from them. */
  lines?: readonly string[];
}

/** A labelled 0–100 bar, its text inside. */
function Bar({
  className,
  name,
  percent,
  text,
}: {
  className: string;
  name: string;
  percent: number;
  text: string;
}) {
  return (
    <div
      className={className}
      role="progressbar"
      aria-label={name}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={text}
    >
      <div className="progress-fill" style={{ width: `${percent}%` }} />
      <span className="progress-label">{text}</span>
    </div>
  );
}

/** "Downloading the base model: 1.20GB of 5.99GB", the file, and the speed once known. */
function BaseDownload({ download }: { download: DownloadProgress }) {
  const percent = download.total > 0 ? Math.min(100, (download.bytes / download.total) * 100) : 0;
  const label = `Downloading the base model: ${formatBytes(download.bytes)} of ${formatBytes(download.total)}`;
  return (
    <div className="training-download">
      <Bar
        className="progress"
        name="Base model download"
        percent={Math.round(percent * 100) / 100}
        text={label}
      />
      <p className="training-hint">
        {download.file
          ? `${download.file}: ${formatBytes(download.fileBytes)} of ${formatBytes(download.fileTotal)} (file ${Math.min(download.filesDone + 1, download.files)} of ${download.files})`
          : `${download.filesDone} of ${download.files} files`}
        {download.bytesPerSecond > 0 ? ` · ${formatBytes(download.bytesPerSecond)}/s` : ''}
        {download.cachedBytes > 0 ? ` · ${formatBytes(download.cachedBytes)} already cached` : ''}
      </p>
    </div>
  );
}

export function RunProgress({
  status,
  busy,
  percent,
  points,
  evalPoints = [],
  run,
  lines = [],
}: RunProgressProps) {
  const download = busy ? downloadInLines(lines) : null;
  return (
    <>
      {download && <BaseDownload download={download} />}
      {busy && (
        <Bar
          className="progress training-progress"
          name="Training progress"
          percent={percent}
          text={formatPercent(percent)}
        />
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
