import { Suspense, lazy, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useSelector } from '@xstate/react';
import {
  selectFailure,
  selectIsBusy,
  selectLastError,
  selectLogLines,
  selectOutputDir,
  selectPercent,
  selectTrainingStatus,
  selectUnreachable,
} from '../../machines/trainingMachine';
import { DEFAULT_BASE_MODEL, TRAINING_PARAMS } from '../../shared/training-api';
import { formatPercent } from '../../shared/training-progress';
import { useTrainingActor } from './useTrainingActor';
// Only a failed run needs it (keeps the first-load bundle within budget).
const FailedRun = lazy(() => import('./FailedRun'));
import './training.css';

/** The training form: script, output folder, data file and base model. */
export interface TrainingForm {
  scriptPath: string;
  outputDir: string;
  dataFile: string;
  baseModel: string;
}

/**
 * Defaults that work with the service's default roots (paths relative to the repo root). The data
 * file starts empty: a fresh clone has no dataset, and 'Use for training' fills it.
 */
export const DEFAULT_TRAINING_FORM: TrainingForm = {
  scriptPath: 'training/finetune.py',
  outputDir: 'service-data/outputs/lora',
  dataFile: '',
  baseModel: DEFAULT_BASE_MODEL,
};

const FORM_KEY = 'training.form.v1';

function loadForm(): TrainingForm {
  try {
    const raw = globalThis.localStorage?.getItem(FORM_KEY);
    const saved = raw ? (JSON.parse(raw) as Partial<Record<keyof TrainingForm, unknown>>) : {};
    const pick = (key: keyof TrainingForm) =>
      typeof saved[key] === 'string' ? saved[key] : DEFAULT_TRAINING_FORM[key];
    return {
      scriptPath: pick('scriptPath'),
      outputDir: pick('outputDir'),
      dataFile: pick('dataFile'),
      baseModel: pick('baseModel'),
    };
  } catch {
    return { ...DEFAULT_TRAINING_FORM };
  }
}

function saveForm(form: TrainingForm) {
  try {
    globalThis.localStorage?.setItem(FORM_KEY, JSON.stringify(form));
  } catch {
    // storage full or disabled: the values just are not kept
  }
}

const NO_DATASET =
  'No dataset stored yet. Make one with Format Input and press Use for training, or type the path of a JSON dataset.';
const DATA_FILE_MISSING = /data_file .*does not exist/;

const FIELDS: { key: keyof TrainingForm; label: string; placeholder: string }[] = [
  { key: 'scriptPath', label: 'Script path', placeholder: 'training/finetune.py' },
  { key: 'outputDir', label: 'Output directory', placeholder: 'service-data/outputs/lora' },
  {
    key: 'dataFile',
    label: 'Data file path',
    placeholder: 'service-data/datasets/<name>.json',
  },
  { key: 'baseModel', label: 'Base model', placeholder: DEFAULT_BASE_MODEL },
];

export interface TrainingPanelProps {
  /** A dataset path from 'Format Input' (e.g. PUT /datasets' answer): fills the data file field. */
  dataFileFromDataset?: string;
}

/**
 * The fine-tuning panel (spec: Training control): fields, 'Train Model' → 'Training...' with a
 * progress bar → '✅ Training finished!'; beyond the spec: last log lines, Cancel, failure with
 * exit code, an unreachable-service warning, and a run picked up again after a reload.
 */
export function TrainingPanel({ dataFileFromDataset }: TrainingPanelProps) {
  const { actorRef, trainingUrl } = useTrainingActor();
  const status = useSelector(actorRef, selectTrainingStatus);
  const busy = useSelector(actorRef, selectIsBusy);
  const percent = useSelector(actorRef, selectPercent);
  const lines = useSelector(actorRef, selectLogLines);
  const unreachable = useSelector(actorRef, selectUnreachable);
  const lastError = useSelector(actorRef, selectLastError);
  const failure = useSelector(actorRef, selectFailure);
  const outputDir = useSelector(actorRef, selectOutputDir);
  // Why the last start was refused (the server's text), shown in the panel, never as a pop-up.
  const [startError, setStartError] = useState<string | null>(null);
  useEffect(() => {
    const subscription = actorRef.on('training.startFailed', (event) => {
      setStartError(event.message);
    });
    return () => subscription.unsubscribe();
  }, [actorRef]);

  const [form, setForm] = useState<TrainingForm>(() => {
    const loaded = loadForm();
    return dataFileFromDataset ? { ...loaded, dataFile: dataFileFromDataset } : loaded;
  });
  // A new dataset path from outside replaces the field (state adjusted during render).
  const [seenDataFile, setSeenDataFile] = useState(dataFileFromDataset);
  if (dataFileFromDataset !== seenDataFile) {
    setSeenDataFile(dataFileFromDataset);
    if (dataFileFromDataset) setForm((f) => ({ ...f, dataFile: dataFileFromDataset }));
  }
  useEffect(() => saveForm(form), [form]);

  const id = useId();
  const logId = `${id}-log`;
  const dataHintId = `${id}-data-hint`;
  const noDataset = form.dataFile.trim() === '';

  // The log box follows its end, so the last (usually the telling) line is in view.
  const logRef = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [lines]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (noDataset) {
      setStartError(NO_DATASET);
      return;
    }
    setStartError(null);
    actorRef.send({
      type: 'training.start',
      request: {
        script_path: form.scriptPath.trim(),
        output_dir: form.outputDir.trim(),
        data_file: form.dataFile.trim(),
        base_model: form.baseModel.trim(),
        ...TRAINING_PARAMS,
      },
    });
  }

  return (
    <section className="training-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Fine-tuning</h2>
      <form className="training-form" onSubmit={submit}>
        {FIELDS.map(({ key, label, placeholder }) => (
          <div className="training-field" key={key}>
            <label htmlFor={`${id}-${key}`}>{label}</label>
            <input
              id={`${id}-${key}`}
              name={key}
              value={form[key]}
              placeholder={placeholder}
              required={key !== 'dataFile'}
              aria-describedby={key === 'dataFile' && noDataset ? dataHintId : undefined}
              disabled={busy}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setForm((f) => ({ ...f, [key]: e.target.value }))}
            />
            {key === 'dataFile' && noDataset && (
              <p className="training-hint" id={dataHintId}>
                {NO_DATASET}
              </p>
            )}
          </div>
        ))}
        <div className="training-actions">
          <button type="submit" className="training-start" disabled={busy}>
            {busy ? 'Training...' : 'Train Model'}
          </button>
          {(status === 'running' || status === 'cancelling') && (
            <button
              type="button"
              className="training-cancel"
              disabled={status === 'cancelling'}
              onClick={() => actorRef.send({ type: 'training.cancel' })}
            >
              {status === 'cancelling' ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
      </form>

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

      {unreachable && (
        <p className="training-warning" role="alert">
          The training service at {trainingUrl} is not answering; still trying, the run is kept.
          {lastError ? ` (${lastError})` : ''}
        </p>
      )}
      {startError && status === 'idle' && (
        <p className="training-failed" role="alert">
          <strong>Training did not start.</strong> {startError}
          {DATA_FILE_MISSING.test(startError)
            ? ' Store one with Format Input → Use for training.'
            : ''}
        </p>
      )}
      {status === 'finished' && (
        <div className="training-done" role="status">
          <p>✅ Training finished!</p>
          {outputDir && (
            <p>
              The adapter was written to <code>{outputDir}</code> on the training service.
            </p>
          )}
        </div>
      )}
      {failure && (
        <Suspense fallback={null}>
          <FailedRun exitCode={failure.exitCode} message={failure.message} lines={lines} />
        </Suspense>
      )}
      {status === 'cancelled' && <p role="status">Training cancelled.</p>}

      {lines.length > 0 && (
        <div className="training-log-box">
          <h3 id={logId}>Last log lines</h3>
          <pre className="training-log" aria-labelledby={logId} tabIndex={0} ref={logRef}>
            {lines.join('\n')}
          </pre>
        </div>
      )}
    </section>
  );
}
