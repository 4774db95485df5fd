import type { StoredModel, StorageEstimate } from '../../shared/storage';
import { formatBytes } from '../../shared/format-bytes';

export interface StoredModelsViewProps {
  models: StoredModel[];
  estimate: StorageEstimate | null;
  persisted: boolean | null;
  loadedId: string | null;
  busy: boolean;
  error: string | null;
  onDelete: (id: string) => void;
  onPersist: () => void;
  onRefresh: () => void;
}

/** The models in the browser cache with their sizes, storage used/available, Delete per model. */
export function StoredModelsView(props: StoredModelsViewProps) {
  const { models, estimate } = props;
  const total = models.reduce((sum, m) => sum + m.bytes, 0);
  return (
    <div className="stored-models">
      {props.error && (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      )}
      {estimate && (
        <p className="storage-estimate">
          Storage used: {estimate.usage === null ? 'unknown' : formatBytes(estimate.usage)} of{' '}
          {estimate.quota === null ? 'unknown' : formatBytes(estimate.quota)} available to this site
          {estimate.usage !== null && estimate.quota !== null
            ? ` (${formatBytes(Math.max(0, estimate.quota - estimate.usage))} free)`
            : ''}
          .
        </p>
      )}
      {props.busy && models.length === 0 ? (
        <p className="status-text">Reading the browser cache…</p>
      ) : models.length === 0 ? (
        <p>No model files are stored in this browser.</p>
      ) : (
        <table className="stored-models-table">
          <caption>Models in the browser cache ({formatBytes(total)} in all)</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Files</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.id}>
                <th scope="row">
                  {m.id}
                  {m.id === props.loadedId && <span className="badge"> loaded</span>}
                </th>
                <td>{m.files}</td>
                <td data-bytes={m.bytes}>{formatBytes(m.bytes)}</td>
                <td>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Delete ${m.id}`}
                    disabled={props.busy}
                    title={
                      m.id === props.loadedId
                        ? 'Load another model before deleting this one'
                        : undefined
                    }
                    onClick={() => props.onDelete(m.id)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="persist-row">
        {props.persisted ? (
          'The browser keeps this data even when storage runs low.'
        ) : (
          <>
            <button
              type="button"
              className="secondary"
              disabled={props.busy}
              onClick={props.onPersist}
            >
              Keep stored data
            </button>{' '}
            Asks the browser not to evict the models and conversations when storage runs low
            {props.persisted === false ? ' (not granted yet)' : ''}.
          </>
        )}
      </p>
    </div>
  );
}
