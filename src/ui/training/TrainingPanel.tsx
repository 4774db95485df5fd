import {
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
} from 'react';
import { useSelector } from '@xstate/react';
import {
  selectFailure,
  selectIsBusy,
  selectLastError,
  selectLogLines,
  selectOutputDir,
  selectPercent,
  selectEvalPoints,
  selectPoints,
  selectRun,
  selectRunModel,
  selectRuns,
  selectTrainedModels,
  selectTrainer,
  selectTrainingStatus,
  selectUnreachable,
} from '../../machines/trainingSelectors';
import * as z from 'zod/mini';
import {
  DEFAULT_BASE_MODEL,
  TrainRequestSchema,
  formatIssues,
  type TrainRequest,
  type TrainedModel,
  type TrainerInfo,
  type TrainingMethod,
} from '../../shared/training-api';
import { useTrainingActor } from './useTrainingActor';
import { LoadInChat, RunProgress } from './RunProgress';
import { CompareLink } from './CompareLink';
import { formOptions, loadForm, saveForm, type TrainingForm } from './training-form';
import { AdvancedOptions } from './AdvancedOptions';
import { sizeWarning, trainerSummary } from './trainer-fit';
import { lazyWithQuery } from '../lazy-with-query';
import { resultWritten } from '../../shared/training-messages';
import { DatasetFileInput } from './DatasetFileInput';
import { UNGATED_ALTERNATIVE, baseModelOptions, isGatedBase } from './base-model-options';
import './training.css';

// Its logs are TanStack queries: TanStack Query and the app's client come with the list.
const RunsList = lazyWithQuery(() => import('./RunsList'));
const FailedRun = lazy(() => import('./FailedRun'));
// The trainer's set-up (POST /trainer/setup and its output): only when its packages are missing
// or a set-up was found going; TanStack Query comes with it.
const TrainerSetup = lazyWithQuery(() => import('./TrainerSetup'));
// The run's plan (POST /train/plan) is a TanStack query: its chunk comes with TanStack Query.
const RunPlan = lazyWithQuery(() => import('./RunPlan'));
// The service's Hub cache (GET /hub-cache), with TanStack Query too.
const HubCache = lazyWithQuery(() => import('./HubCache'));
// A finished run's GGUF downloads (GET /runs/{id}/exports), with TanStack Query too.
const RunExports = lazyWithQuery(() => import('./RunExports'));

const HUB = 'https://huggingface.co';

const METHODS: { value: TrainingMethod; label: string; cost: string }[] = [
  {
    value: 'lora',
    label: 'LoRA',
    cost: 'small adapters on every linear layer: least memory, fastest, a small file; learns less',
  },
  {
    value: 'full',
    label: 'Full fine-tuning',
    cost: 'every weight: about 16 bytes of memory per parameter, slowest; learns most',
  },
];

const NO_DATASET =
  'No dataset stored yet. Make one with Format Input and press Use for training, or type the path of a JSON dataset.';
const DATA_FILE_MISSING = /data_file .*does not exist/;

type TextField = Exclude<keyof TrainingForm, 'method' | 'options'>;
const FIELDS: { key: TextField; label: string; placeholder: string }[] = [
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
  dataFileFromDataset?: string | undefined;
  /** The service's browser-ready models (GET /models), whenever the list changes (the picker). */
  onTrainedModels?: ((models: readonly TrainedModel[], serviceUrl: string) => void) | undefined;
  /** Hub ids the Base model field suggests (the in-browser models' originals). */
  baseModelSuggestions?: readonly { id: string; label: string }[] | undefined;
  /** "Load in chat": load this trained model into the chat. */
  onLoadInChat?: ((model: TrainedModel) => void) | undefined;
}

/**
 * The fine-tuning panel (PRODUCT.md §2: Training control): fields, 'Train Model' → 'Training...' with a
 * progress bar → '✅ Training finished!'; beyond it: the run active on the service attached
 * on load, "Saving…", the loss curve, last log lines, Cancel, failure with exit code, an
 * unreachable-service warning, the Runs list and "Load in chat" for a browser-ready model.
 */
export function TrainingPanel({
  dataFileFromDataset,
  onTrainedModels,
  baseModelSuggestions = [],
  onLoadInChat,
}: TrainingPanelProps) {
  const { actorRef, trainingUrl, trainingLog, trainingPlan } = useTrainingActor();
  const status = useSelector(actorRef, selectTrainingStatus);
  const busy = useSelector(actorRef, selectIsBusy);
  const percent = useSelector(actorRef, selectPercent);
  const lines = useSelector(actorRef, selectLogLines);
  const unreachable = useSelector(actorRef, selectUnreachable);
  const lastError = useSelector(actorRef, selectLastError);
  const failure = useSelector(actorRef, selectFailure);
  const outputDir = useSelector(actorRef, selectOutputDir);
  const points = useSelector(actorRef, selectPoints);
  const evalPoints = useSelector(actorRef, selectEvalPoints);
  const trainer = useSelector(actorRef, selectTrainer);
  const onTrainerChanged = useCallback(
    (next: TrainerInfo) => actorRef.send({ type: 'training.trainerChanged', trainer: next }),
    [actorRef],
  );
  const run = useSelector(actorRef, selectRun);
  const runs = useSelector(actorRef, selectRuns);
  const trainedModels = useSelector(actorRef, selectTrainedModels);
  const trainedModel = useSelector(actorRef, selectRunModel);
  useEffect(() => {
    onTrainedModels?.(trainedModels, trainingUrl);
  }, [trainedModels, onTrainedModels, trainingUrl]);
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
  // The Hub token lives in this component's memory only: never in the saved form or storage.
  const [hubToken, setHubToken] = useState('');
  const [cachedBases, setCachedBases] = useState<readonly string[]>([]);

  const id = useId();
  const logId = `${id}-log`;
  const dataHintId = `${id}-data-hint`;
  const suggestId = `${id}-base-models`;
  const baseHintId = `${id}-base-hint`;
  const tokenHintId = `${id}-token-hint`;
  const gated = isGatedBase(form.baseModel);
  const noDataset = form.dataFile.trim() === '';

  // The log box follows its end, so the last (usually the telling) line is in view.
  const logRef = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [lines]);

  const resume = useCallback(
    (runId: string) => {
      setStartError(null);
      actorRef.send({ type: 'training.resume', runId });
    },
    [actorRef],
  );

  const options = formOptions(form);
  const optionsInvalid = options.errors.length > 0;
  /**
   * The start request as the form stands: the paths, the method, the options it sends, and the
   * Hub token when one is typed (`withToken`: the start only, never the plan).
   */
  function startRequest(withToken: boolean): { request: TrainRequest } | { error: string } {
    const token = withToken ? hubToken.trim() : '';
    const baseModel = form.baseModel.trim();
    const parsed = z.safeParse(TrainRequestSchema, {
      script_path: form.scriptPath.trim(),
      output_dir: form.outputDir.trim(),
      data_file: form.dataFile.trim(),
      base_model: baseModel,
      ...options.values,
      method: form.method,
      // Compare needs the base in the browser: export it unless it is one of the in-browser models.
      ...(baseModelSuggestions.some((m) => m.id === baseModel) ? {} : { export_base: true }),
      ...(token ? { hub_token: token } : {}),
    });
    return parsed.success
      ? { request: parsed.data }
      : { error: formatIssues(parsed.error.issues, 'request') };
  }
  const planned = noDataset || optionsInvalid ? null : startRequest(false);
  // The plan needs the trainer's packages: asked once the service says they are there. Beside it
  // (its memory estimate comes from the model's config) the rough size warning gives no figure.
  const planShown =
    !busy && trainer?.missing.length === 0 && planned !== null && 'request' in planned;
  const warning = sizeWarning(trainer ?? undefined, form.baseModel.trim(), form.method, {
    planShown,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (noDataset) {
      setStartError(NO_DATASET);
      return;
    }
    if (optionsInvalid) return;
    const start = startRequest(true);
    if ('error' in start) {
      setStartError(start.error);
      return;
    }
    setStartError(null);
    actorRef.send({ type: 'training.start', request: start.request });
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
              aria-describedby={
                key === 'dataFile' && noDataset
                  ? dataHintId
                  : key === 'baseModel'
                    ? baseHintId
                    : undefined
              }
              list={key === 'baseModel' ? suggestId : undefined}
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
            {key === 'dataFile' && (
              <DatasetFileInput
                disabled={busy}
                onStored={(path) => setForm((f) => ({ ...f, dataFile: path }))}
              />
            )}
            {key === 'baseModel' && (
              <p className="training-hint" id={baseHintId}>
                A Hub id, or a model folder on the training service&apos;s machine (Hugging Face
                layout: config.json, tokenizer, weights). The suggestions include the models the
                service already has.
              </p>
            )}
            {key === 'baseModel' && gated && (
              <p className="training-warning" role="note">
                {form.baseModel.trim()} is gated on the Hub: accept its licence on{' '}
                <a href={`${HUB}/${form.baseModel.trim()}`} target="_blank" rel="noreferrer">
                  its page
                </a>{' '}
                (signed in) and give a Hub token below. Not gated, the same size:{' '}
                <button
                  type="button"
                  className="training-link-button"
                  disabled={busy}
                  onClick={() => setForm((f) => ({ ...f, baseModel: UNGATED_ALTERNATIVE }))}
                >
                  use {UNGATED_ALTERNATIVE}
                </button>
                .
              </p>
            )}
          </div>
        ))}
        <div className="training-field">
          <label htmlFor={`${id}-hubToken`}>Hub token (optional)</label>
          <input
            id={`${id}-hubToken`}
            name="hubToken"
            type="password"
            value={hubToken}
            placeholder="hf_…"
            autoComplete="off"
            spellCheck={false}
            disabled={busy}
            aria-describedby={tokenHintId}
            onChange={(e) => setHubToken(e.target.value)}
          />
          <p className="training-hint" id={tokenHintId}>
            For a gated or private base model: a read token from{' '}
            <a href={`${HUB}/settings/tokens`} target="_blank" rel="noreferrer">
              your Hub settings
            </a>
            . Kept only in this tab&apos;s memory and sent only to the local training service, for
            the next run.
          </p>
        </div>
        <fieldset className="training-method" disabled={busy}>
          <legend>Method</legend>
          {METHODS.map((m) => (
            <label key={m.value}>
              <input
                type="radio"
                name="method"
                value={m.value}
                checked={form.method === m.value}
                onChange={() => setForm((f) => ({ ...f, method: m.value }))}
              />{' '}
              <strong>{m.label}</strong>: {m.cost}
            </label>
          ))}
        </fieldset>
        <AdvancedOptions
          values={form.options}
          method={form.method}
          errors={options.errors}
          disabled={busy}
          onChange={(name, value) =>
            setForm((f) => ({ ...f, options: { ...f.options, [name]: value } }))
          }
        />
        <div className="trainer-status">
          {trainer === null ? (
            <p>Trainer: not known yet (the training service has not said)</p>
          ) : trainer.missing.length === 0 ? (
            <p title={trainer.python ?? undefined}>Trainer: {trainerSummary(trainer)}</p>
          ) : null}
          {trainer && (trainer.missing.length > 0 || trainer.setup.state !== 'idle') && (
            <Suspense fallback={<p>Trainer: its packages are missing…</p>}>
              <TrainerSetup trainer={trainer} busy={busy} onChanged={onTrainerChanged} />
            </Suspense>
          )}
          {warning && (
            <p className="training-warning" role="note">
              {warning}
            </p>
          )}
        </div>
        {planShown && planned && 'request' in planned && (
          <Suspense fallback={null}>
            <RunPlan request={planned.request} trainingUrl={trainingUrl} planRun={trainingPlan} />
          </Suspense>
        )}
        <datalist id={suggestId}>
          {baseModelOptions(baseModelSuggestions, trainedModels, cachedBases).map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </datalist>
        <div className="training-actions">
          <button type="submit" className="training-start" disabled={busy || optionsInvalid}>
            {busy ? 'Training...' : 'Train Model'}
          </button>
          {(status === 'running' || status === 'saving' || status === 'cancelling') && (
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

      <RunProgress
        status={status}
        busy={busy}
        percent={percent}
        points={points}
        evalPoints={evalPoints}
        run={run}
        lines={lines}
      />

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
              {resultWritten(run?.method)} was written to <code>{outputDir}</code> on the training
              service.
            </p>
          )}
        </div>
      )}
      {status === 'finished' && run && (
        <div className="training-finished-actions">
          <LoadInChat run={run} model={trainedModel} onLoadInChat={onLoadInChat} />
          {trainedModel && <CompareLink runId={run.id} />}
        </div>
      )}
      {status === 'finished' && run && (
        <Suspense fallback={null}>
          <RunExports run={run} />
        </Suspense>
      )}
      {failure && (
        <Suspense fallback={null}>
          <FailedRun
            exitCode={failure.exitCode}
            message={failure.message}
            lines={lines}
            resumeStep={run?.resumable ? (run.checkpoint_step ?? null) : null}
            onResume={run ? () => resume(run.id) : undefined}
            busy={busy}
          />
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

      {/* Asked once the service has answered (its chunk loads after the panel's first paint). */}
      {trainer !== null && (
        <Suspense fallback={null}>
          <HubCache busy={busy} onModels={setCachedBases} />
        </Suspense>
      )}

      {runs.length > 0 && (
        <Suspense fallback={null}>
          <RunsList
            runs={runs}
            trainingUrl={trainingUrl}
            trainingLog={trainingLog}
            trainedModels={trainedModels}
            onLoadInChat={onLoadInChat}
            onResume={resume}
            busy={busy}
          />
        </Suspense>
      )}
    </section>
  );
}
