import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import {
  selectCanLoad,
  selectLoadError,
  selectModelStatus,
  selectProgressItems,
  selectSelectedModel,
  selectStatusText,
  type modelMachine,
} from '../../machines/modelMachine';
import { ModelDropdown } from '../ModelDropdown';
import { ProgressBar } from './ProgressBar';

/** The initial and loading states of the start screen (spec section 2). */
export function ModelPanel({ model }: { model: ActorRefFrom<typeof modelMachine> }) {
  const state = useSelector(model, selectModelStatus);
  const selected = useSelector(model, selectSelectedModel);
  const error = useSelector(model, selectLoadError);
  const canLoad = useSelector(model, selectCanLoad);
  const files = useSelector(model, selectProgressItems);
  const statusText = useSelector(model, selectStatusText);
  const options = useSelector(model, (s) => s.context.models);
  const loading = state === 'loading';

  return (
    <section className="start" aria-labelledby="start-heading">
      <h1 id="start-heading">Load local LLM models within the browser!</h1>
      <p className="intro">
        Choose a model and load it: it is downloaded once, then runs entirely in your browser on
        WebGPU with Transformers.js and ONNX Runtime Web. Nothing you type leaves this device, and
        once loaded it works without wifi.
      </p>
      {error !== null && (
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
          options={options.map((o) => ({ value: o.value, label: o.label, hint: o.size }))}
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
          <button
            type="button"
            className="primary"
            disabled={!canLoad}
            onClick={() => model.send({ type: 'model.load' })}
          >
            Load model
          </button>
        )}
      </div>
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
