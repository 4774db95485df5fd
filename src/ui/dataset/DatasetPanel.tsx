import { Suspense, lazy, useId, useState } from 'react';
import { DatasetMessage } from './DatasetMessage';
import type { DatasetSelectors } from './useDatasetActor';
import { SAMPLE_NAME, SAMPLE_TEXT } from '../../shared/dataset/sample';
import { errorMessage } from '../../shared/errors';
import { MAX_PAIRS, type DatasetEntry, type DatasetSource } from '../../shared/dataset/types';
// The review (dialog and table) is fetched when a dataset first arrives.
const ReviewDialog = lazy(() =>
  import('./ReviewDialog').then((m) => ({ default: m.ReviewDialog })),
);
const DatasetReview = lazy(() =>
  import('./DatasetReview').then((m) => ({ default: m.DatasetReview })),
);
import { DatasetProgress } from './DatasetProgress';
import { downloadText } from './download';
import { useDatasetActor, useDatasetSelector } from './useDatasetActor';
import type { GenerateLocal } from '../services';
import { readStoredToken, TokenField } from './TokenField';

export { TOKEN_STORAGE_KEY } from './TokenField';

import './dataset.css';

export interface DatasetPanelProps {
  /** Whether the in-browser model is loaded (enables "Generate with the loaded local model"). */
  localModelReady?: boolean;
  /** Runs a prompt on the in-browser model (the chat worker); `onText` gets the reply so far. */
  generateLocal?: GenerateLocal;
  /** Stores the dataset on the training service; resolves with the stored file path. */
  onUseForTraining?: (entries: DatasetEntry[], name: string) => Promise<string>;
}

const NO_ENTRIES: DatasetEntry[] = [];
const NO_INVALID: ReturnType<DatasetSelectors['selectInvalid']> = [];
const NO_PROBLEMS: ReturnType<DatasetSelectors['selectRowProblems']> = [];
const NO_PROGRESS: ReturnType<DatasetSelectors['selectProgress']> = [];

type Sending =
  | { status: 'idle' }
  | { status: 'sending' }
  | { status: 'sent'; path: string }
  | { status: 'failed'; message: string };

/** 'Format Input': a sample text turned into question/answer pairs, reviewed and downloaded. */
export function DatasetPanel({
  localModelReady = false,
  generateLocal,
  onUseForTraining,
}: DatasetPanelProps) {
  const id = useId();
  const [name, setName] = useState(SAMPLE_NAME);
  const [text, setText] = useState(SAMPLE_TEXT);
  const [count, setCount] = useState(10);
  const [source, setSource] = useState<DatasetSource>('hosted');
  const [token, setToken] = useState(readStoredToken);
  const [sending, setSending] = useState<Sending>({ status: 'idle' });
  const [reviewOpen, setReviewOpen] = useState(false);
  const engine = useDatasetActor({
    getToken: () => token.trim(),
    generateLocal,
  });
  const { actor, ensure } = engine;
  const [engineError, setEngineError] = useState<string | null>(null);
  // Until the first 'Format Input' there is no actor: every selector reads its idle value.
  const phase = useDatasetSelector(engine, (x) => x.selectPhase, 'idle');
  const entries = useDatasetSelector(engine, (x) => x.selectEntries, NO_ENTRIES);
  const invalid = useDatasetSelector(engine, (x) => x.selectInvalid, NO_INVALID);
  const problems = useDatasetSelector(engine, (x) => x.selectRowProblems, NO_PROBLEMS);
  const error = useDatasetSelector(engine, (x) => x.selectError, null);
  const inputError = useDatasetSelector(engine, (x) => x.selectInputError, null);
  const progress = useDatasetSelector(engine, (x) => x.selectProgress, NO_PROGRESS);
  const raw = useDatasetSelector(engine, (x) => x.selectRawOutput, '');
  const partial = useDatasetSelector(engine, (x) => x.selectPartialCount, 0);
  const datasetName = useDatasetSelector(engine, (x) => x.selectName, '');
  const effectiveSource = source === 'local' && !localModelReady ? 'hosted' : source;
  const badRows = problems.filter(Boolean).length;
  // The review opens in its own wide view each time a dataset arrives (state adjusted in render).
  const [seenPhase, setSeenPhase] = useState(phase);
  if (phase !== seenPhase) {
    setSeenPhase(phase);
    setReviewOpen(phase === 'review');
  }
  const canExport = phase === 'review' && entries.length > 0 && badRows === 0;

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setSending({ status: 'idle' });
    setEngineError(null);
    let dataset;
    try {
      dataset = await ensure();
    } catch (e) {
      // Only when the app's own code cannot be fetched (offline before it was ever cached).
      setEngineError(`Format Input could not start: ${errorMessage(e)}`);
      return;
    }
    dataset.send({
      type: 'dataset.format',
      name,
      text,
      count: Math.min(MAX_PAIRS, Math.max(1, Math.round(count) || 1)),
      source: effectiveSource,
      hasToken: token.trim() !== '',
    });
  };

  const sendForTraining = async () => {
    if (!onUseForTraining) return;
    setSending({ status: 'sending' });
    try {
      const path = await onUseForTraining(entries, datasetName);
      setSending({ status: 'sent', path });
    } catch (e) {
      // The client's own message: unreachable (with the command to start it) or the service's text.
      setSending({
        status: 'failed',
        message: `${errorMessage(e)} The dataset is kept: download it or try again.`,
      });
    }
  };

  const generating = phase === 'generating';
  return (
    <section className="dataset-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Dataset from a text</h2>
      <form className="dataset-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor={`${id}-name`}>Name or title</label>
        <input
          id={`${id}-name`}
          value={name}
          onChange={(e) => setName(e.target.value)}
          disabled={generating}
        />
        <label htmlFor={`${id}-text`}>Sample text</label>
        <textarea
          id={`${id}-text`}
          value={text}
          rows={8}
          onChange={(e) => setText(e.target.value)}
          disabled={generating}
        />
        <label htmlFor={`${id}-count`}>Number of pairs</label>
        <input
          id={`${id}-count`}
          type="number"
          min={1}
          max={MAX_PAIRS}
          value={count}
          onChange={(e) => setCount(e.target.valueAsNumber)}
          disabled={generating}
        />
        <fieldset className="dataset-source" disabled={generating}>
          <legend>Model</legend>
          <label>
            <input
              type="radio"
              name={`${id}-source`}
              checked={effectiveSource === 'hosted'}
              onChange={() => setSource('hosted')}
            />
            Hosted model (openai/gpt-oss-20b)
          </label>
          <label>
            <input
              type="radio"
              name={`${id}-source`}
              checked={effectiveSource === 'local'}
              disabled={!localModelReady}
              aria-describedby={localModelReady ? undefined : `${id}-local-reason`}
              onChange={() => setSource('local')}
            />
            Generate with the loaded local model
          </label>
          {!localModelReady && (
            <p id={`${id}-local-reason`} className="dataset-hint">
              Load a model first: the local option runs the prompt on the in-browser model.
            </p>
          )}
        </fieldset>
        {effectiveSource === 'hosted' && (
          <TokenField id={`${id}-token`} token={token} disabled={generating} onChange={setToken} />
        )}
        {engineError && (
          <p className="dataset-error" role="alert">
            {engineError}
          </p>
        )}
        {inputError && (
          <p className="dataset-error" role="alert">
            <DatasetMessage message={inputError.message} localModelReady={localModelReady} />
          </p>
        )}
        <div className="dataset-actions">
          <button type="submit" className="primary" disabled={generating}>
            Format Input
          </button>
          {generating && (
            <button
              type="button"
              className="secondary"
              onClick={() => actor?.send({ type: 'dataset.cancel' })}
            >
              Cancel
            </button>
          )}
        </div>
      </form>

      {generating && <DatasetProgress progress={progress} />}

      {phase === 'failed' && error && (
        <div className="dataset-failure" role="alert">
          <p>
            <DatasetMessage message={error.message} localModelReady={localModelReady} />
          </p>
          <div className="dataset-actions">
            {error.retryable && (
              <button
                type="button"
                className="secondary"
                onClick={() => actor?.send({ type: 'dataset.retry' })}
              >
                Retry
              </button>
            )}
            {partial > 0 && (
              <button
                type="button"
                className="secondary"
                onClick={() => actor?.send({ type: 'dataset.keepPartial' })}
              >
                Review the {partial} pairs so far
              </button>
            )}
          </div>
        </div>
      )}
      {(phase === 'failed' || phase === 'review') && raw && (
        <button
          type="button"
          className="link"
          onClick={() => downloadText('raw-output.txt', raw, 'text/plain')}
        >
          Download raw output
        </button>
      )}

      {phase === 'review' && (
        <button type="button" onClick={() => setReviewOpen(true)}>
          Review the {entries.length} {entries.length === 1 ? 'pair' : 'pairs'}
        </button>
      )}
      {phase === 'review' && (
        <Suspense fallback={null}>
          <ReviewDialog
            open={reviewOpen}
            title={`Review: ${datasetName || 'dataset'}`}
            onClose={() => setReviewOpen(false)}
          >
            <>
              <DatasetReview
                entries={entries}
                problems={problems}
                invalid={invalid}
                onChange={(index, entry) =>
                  actor?.send({ type: 'dataset.entry.change', index, entry })
                }
                onDelete={(index) => actor?.send({ type: 'dataset.entry.delete', index })}
              />
              {badRows > 0 && (
                <p className="dataset-error">
                  Fix or delete the {badRows} {badRows === 1 ? 'row' : 'rows'} marked invalid before
                  using the dataset.
                </p>
              )}
              <div className="dataset-actions">
                <button
                  type="button"
                  className="primary"
                  disabled={!canExport}
                  onClick={() =>
                    downloadText(
                      'input_data.json',
                      JSON.stringify(entries, null, 2),
                      'application/json',
                    )
                  }
                >
                  Download input_data.json
                </button>
                {onUseForTraining && (
                  <button
                    type="button"
                    className="secondary"
                    disabled={!canExport || sending.status === 'sending'}
                    onClick={() => void sendForTraining()}
                  >
                    {sending.status === 'sending' ? 'Sending…' : 'Use for training'}
                  </button>
                )}
              </div>
              {sending.status === 'sent' && (
                <p role="status">
                  Stored as {sending.path}; the training panel's data file now points to it.
                </p>
              )}
              {sending.status === 'failed' && (
                <p className="dataset-error" role="alert">
                  {sending.message}
                </p>
              )}
            </>
          </ReviewDialog>
        </Suspense>
      )}
    </section>
  );
}
