/**
 * The Runs list: past and current runs on the training service (state, base model, steps,
 * duration, last loss), each one's log on demand, what a finished run wrote and where, "Load in
 * chat" for a run whose browser-ready model is complete (else why not), and "Resume" for a run
 * that ended without its result but left a checkpoint; a run's GGUF files and Ollama Modelfile as
 * downloads (RunExports). Its own chunk, loaded once the service has runs.
 */
import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { RunInfo, TrainedModel } from '../../shared/training-api';
import { trainingKeys } from '../../shared/training-keys';
import { formatDuration, formatLoss } from './run-stats';
import { optionSummary } from '../../shared/training-fields';
import { CompareLink } from './CompareLink';
import RunExports from './RunExports';
import { runModel } from '../../machines/trainingSelectors';
import { NO_BROWSER_COPY, resultWritten } from '../../shared/training-messages';

export interface RunsListProps {
  runs: readonly RunInfo[];
  trainingUrl: string;
  trainingLog: (runId: string, signal?: AbortSignal) => Promise<string[]>;
  trainedModels: readonly TrainedModel[];
  onLoadInChat?: ((model: TrainedModel) => void) | undefined;
  /** Resume a run from its newest checkpoint (POST /runs/{id}/resume). */
  onResume?: ((runId: string) => void) | undefined;
  /** A run is starting or active: Resume would be refused. */
  busy?: boolean | undefined;
}

const folderOf = (path: string) =>
  path
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .pop() ?? path;

function stateText(run: RunInfo): string {
  if (run.state === 'succeeded' && !run.model_id && run.model_error)
    return NO_BROWSER_COPY.toLowerCase();
  if (run.state === 'running' && run.phase === 'saving') return 'saving';
  if (run.state === 'running' && run.phase === 'cancelling') return 'cancelling';
  return run.state;
}

type LogSource = Pick<RunsListProps, 'trainingUrl' | 'trainingLog'>;

function RunLog({ source, runId, id }: { source: LogSource; runId: string; id: string }) {
  const log = useQuery({
    queryKey: trainingKeys.runLog(source.trainingUrl, runId),
    queryFn: ({ signal }) => source.trainingLog(runId, signal),
    retry: false,
  });
  if (log.error)
    return (
      <p role="alert" className="training-failed" id={id}>
        {log.error.message}
      </p>
    );
  if (!log.data) return <p id={id}>Loading the log…</p>;
  return (
    <pre className="training-log" id={id} tabIndex={0} aria-label={`Log of run ${runId}`}>
      {log.data.join('\n') || '(empty)'}
    </pre>
  );
}

function RunItem({
  run,
  source,
  model,
  onLoadInChat,
  onResume,
  busy,
}: {
  run: RunInfo;
  source: LogSource;
  model: TrainedModel | undefined;
  onLoadInChat?: ((model: TrainedModel) => void) | undefined;
  onResume?: ((runId: string) => void) | undefined;
  busy?: boolean | undefined;
}) {
  const [open, setOpen] = useState(false);
  const logId = useId();
  const steps = run.total !== null ? `${run.current ?? 0}/${run.total} steps` : 'no steps yet';
  // The options it was started with that differ from the method's defaults (the table's labels).
  const options = run.options ? optionSummary(run.options, run.method) : '';
  return (
    <li className={`training-run training-run-${run.state}`}>
      <p className="training-run-summary">
        <strong>{stateText(run)}</strong> · <code>{folderOf(run.output_dir)}</code> ·{' '}
        {run.base_model} · {steps} · {formatDuration(run.duration_ms / 1000)}
        {run.last_loss !== null ? ` · loss ${formatLoss(run.last_loss)}` : ''}
      </p>
      {options && <p className="training-run-options">{options}</p>}
      <div className="training-run-actions">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={open ? logId : undefined}
          onClick={() => setOpen((v) => !v)}
        >
          {open ? 'Hide log' : 'Log'}
        </button>
        {model && onLoadInChat && (
          <button
            type="button"
            aria-label={`Load in chat: ${folderOf(run.output_dir)}`}
            onClick={() => onLoadInChat(model)}
          >
            Load in chat
          </button>
        )}
        {run.state === 'succeeded' && model && (
          <CompareLink runId={run.id} name={folderOf(run.output_dir)} />
        )}
        {run.resumable && onResume && (
          <button
            type="button"
            aria-label={`Resume ${folderOf(run.output_dir)} from step ${run.checkpoint_step ?? 0}`}
            disabled={busy}
            onClick={() => onResume(run.id)}
          >
            Resume
          </button>
        )}
      </div>
      {run.state === 'succeeded' && (
        <p className="training-hint">
          {resultWritten(run.method)} was written to <code>{run.output_dir}</code>.
        </p>
      )}
      {run.state === 'succeeded' && !model && run.model_error && (
        <p className="training-hint">Why no browser copy: {run.model_error}</p>
      )}
      <RunExports run={run} />
      {open && <RunLog source={source} runId={run.id} id={logId} />}
    </li>
  );
}

export default function RunsList({
  runs,
  trainingUrl,
  trainingLog,
  trainedModels,
  onLoadInChat,
  onResume,
  busy,
}: RunsListProps) {
  const headingId = useId();
  return (
    <section className="training-runs" aria-labelledby={headingId}>
      <h3 id={headingId}>Runs</h3>
      <ul>
        {runs.map((run) => (
          <RunItem
            key={run.id}
            run={run}
            source={{ trainingUrl, trainingLog }}
            model={runModel(trainedModels, run.id)}
            onLoadInChat={onLoadInChat}
            onResume={onResume}
            busy={busy}
          />
        ))}
      </ul>
    </section>
  );
}
