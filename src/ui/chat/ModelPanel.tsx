import { Suspense, lazy, useState, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { type modelMachine } from '../../machines/modelMachine';
import {
  selectCanLoad,
  selectDownloadPlan,
  selectLoadError,
  selectModelOptions,
  selectMissingVariant,
  selectModelStatus,
  selectProgressItems,
  selectReferenceCheck,
  selectSelectedModel,
  selectSizes,
  selectStatusText,
} from '../../machines/modelSelectors';
import { ModelDropdown } from '../ModelDropdown';
import { ProgressBar } from './ProgressBar';
import { formatBytes } from '../format';

// Only a model the trainer exported is checked on this GPU: its status line is a chunk of its own.
const ReferenceCheckStatus = lazy(() =>
  import('./ReferenceCheckStatus').then((m) => ({ default: m.ReferenceCheckStatus })),
);

/**
 * The start screen (PRODUCT.md §2) and, once a model is ready, the compact model bar: the picker
 * stays usable, and loading another model while a reply is streaming asks first.
 */
export function ModelPanel({
  model,
  compact = false,
  generating = false,
  onStopReply,
  extra,
}: {
  model: ActorRefFrom<typeof modelMachine>;
  /** A model is ready: only the picker row. */
  compact?: boolean;
  /** A reply is streaming (loading another model stops it, after asking). */
  generating?: boolean;
  onStopReply?: () => void;
  /** More controls on the picker row (the Stored models button). */
  extra?: ReactNode;
}) {
  const plan = useSelector(model, selectDownloadPlan);
  const sizes = useSelector(model, selectSizes);
  const missingVariant = useSelector(model, selectMissingVariant);
  // The inline question before stopping a reply is ephemeral UI state.
  const [confirming, setConfirming] = useState(false);
  const state = useSelector(model, selectModelStatus);
  const selected = useSelector(model, selectSelectedModel);
  const error = useSelector(model, selectLoadError);
  const canLoad = useSelector(model, selectCanLoad);
  const files = useSelector(model, selectProgressItems);
  const statusText = useSelector(model, selectStatusText);
  const options = useSelector(model, selectModelOptions);
  const check = useSelector(model, selectReferenceCheck);
  const loading = state === 'loading';

  const load = () => {
    if (generating && !confirming) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    if (generating) onStopReply?.();
    model.send({ type: 'model.load' });
  };

  return (
    <section
      className={compact ? 'start start-compact' : 'start'}
      aria-labelledby={compact ? undefined : 'start-heading'}
      aria-label={compact ? 'Model' : undefined}
    >
      {!compact && (
        <>
          <h1 id="start-heading">Load local LLM models within the browser!</h1>
          <p className="intro">
            Choose a model: downloaded once, it runs in your browser on WebGPU. Nothing you type
            leaves this device; once loaded it works offline.
          </p>
        </>
      )}
      {state === 'lost' && error !== null && (
        <div className="load-error" role="alert">
          <p className="load-error-message">{error}</p>
          <p className="load-error-hint">What you typed is kept.</p>
          <button
            type="button"
            className="primary"
            onClick={() => model.send({ type: 'model.reload' })}
          >
            Load the model again
          </button>
        </div>
      )}
      {state !== 'lost' && error !== null && (
        <div className="load-error" role="alert">
          <p>Unable to load model due to the following error:</p>
          <p className="load-error-message">{error}</p>
          <p className="load-error-hint">Retry, or choose another model above.</p>
        </div>
      )}
      <div className="load-row">
        <ModelDropdown
          label="Model"
          placeholder="Choose LLM model"
          options={options.map((o) => {
            // Sizes come from the files' metadata (no hand-written figures).
            const bytes = sizes[o.value];
            return { value: o.value, label: o.label, hint: bytes ? formatBytes(bytes) : undefined };
          })}
          value={selected}
          disabled={loading}
          onChange={(value) => model.send({ type: 'model.select', value })}
        />
        {/* One action at a time: after a failure Retry replaces the (then disabled) Load. */}
        {state === 'failed' ? (
          <button
            type="button"
            className="primary"
            onClick={() => model.send({ type: 'model.retry' })}
          >
            Retry
          </button>
        ) : (
          <button type="button" className="primary" disabled={!canLoad} onClick={load}>
            Load model
          </button>
        )}
        {extra}
      </div>
      {check && (
        <Suspense fallback={null}>
          <ReferenceCheckStatus
            check={check}
            onLoadAlternative={(dtype) => model.send({ type: 'model.loadAlternative', dtype })}
            generating={generating}
            onStopReply={onStopReply}
          />
        </Suspense>
      )}
      {confirming && (
        <div className="switch-confirm" role="group" aria-label="Stop the reply?">
          <p>A reply is being written. Stop it and load the other model?</p>
          <button type="button" className="primary" onClick={load}>
            Stop reply and load
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep writing
          </button>
        </div>
      )}
      {missingVariant && (state === 'none' || state === 'ready') && (
        <p className="fit-warning" role="alert">
          {missingVariant}
        </p>
      )}
      {plan && canLoad && (
        <div className="download-plan">
          <p>
            Download size: {formatBytes(plan.totalBytes)} ({plan.id}, {plan.dtype}
            {plan.largestFile
              ? `; largest file ${plan.largestFile.file}, ${formatBytes(plan.largestFile.size)}`
              : ''}
            ){plan.stored ? ' — as stored at an earlier check' : ''}
          </p>
          {plan.warnings.map((w) => (
            <p key={w.kind} className="fit-warning" role="alert">
              {w.message}
            </p>
          ))}
        </div>
      )}
      {loading && (
        <div className="loading" aria-live="polite">
          <p className="status-text">{statusText}</p>
          {files.map((f) => (
            <ProgressBar key={f.file} file={f.file} progress={f.progress} total={f.total} />
          ))}
        </div>
      )}
    </section>
  );
}
