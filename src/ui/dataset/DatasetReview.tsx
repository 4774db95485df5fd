import type { DatasetEntry, InvalidEntry } from '../../shared/dataset/types';

export interface DatasetReviewProps {
  entries: readonly DatasetEntry[];
  /** Per row: why it is not acceptable after editing, or null. */
  problems: readonly (string | null)[];
  invalid: readonly InvalidEntry[];
  onChange: (index: number, entry: Partial<DatasetEntry>) => void;
  onDelete: (index: number) => void;
}

function preview(item: unknown): string {
  const text = typeof item === 'string' ? item : JSON.stringify(item);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Alt+↑ / Alt+↓ in a field: focus the same field of the row above or below. */
function moveBetweenRows(event: React.KeyboardEvent<HTMLTextAreaElement>) {
  if (!event.altKey || (event.key !== 'ArrowDown' && event.key !== 'ArrowUp')) return;
  const field = event.currentTarget;
  const row = Number(field.dataset.row) + (event.key === 'ArrowDown' ? 1 : -1);
  const next = field
    .closest('table')
    ?.querySelector<HTMLTextAreaElement>(
      `textarea[data-row="${row}"][data-col="${field.dataset.col}"]`,
    );
  if (!next) return;
  event.preventDefault();
  next.focus();
}

/** The generated pairs as an editable table, and what was left out (never silently). */
export function DatasetReview({
  entries,
  problems,
  invalid,
  onChange,
  onDelete,
}: DatasetReviewProps) {
  return (
    <div className="dataset-review">
      <p className="dataset-summary" role="status">
        {entries.length} {entries.length === 1 ? 'pair' : 'pairs'}
        {invalid.length > 0 &&
          `; ${invalid.length} invalid ${invalid.length === 1 ? 'entry' : 'entries'} left out`}
      </p>
      {invalid.length > 0 && (
        <details className="dataset-invalid">
          <summary>Why entries were left out</summary>
          <ul>
            {invalid.map((x, i) => (
              <li key={i}>
                Part {x.chunk + 1}, item {x.index + 1}: {x.reason}
                <code>{preview(x.item)}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      <div className="dataset-table-wrap">
        <table className="dataset-table">
          <caption className="sr-only">Generated question/answer pairs</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Prompt</th>
              <th scope="col">Completion</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry, i) => {
              const problem = problems[i];
              return (
                <tr key={i} className={problem ? 'invalid' : undefined}>
                  <th scope="row">{i + 1}</th>
                  <td>
                    <textarea
                      aria-label={`Prompt ${i + 1}`}
                      data-row={i}
                      data-col="prompt"
                      onKeyDown={moveBetweenRows}
                      value={entry.prompt}
                      rows={3}
                      onChange={(e) => onChange(i, { prompt: e.target.value })}
                    />
                  </td>
                  <td>
                    <textarea
                      aria-label={`Completion ${i + 1}`}
                      data-row={i}
                      data-col="completion"
                      onKeyDown={moveBetweenRows}
                      value={entry.completion}
                      rows={4}
                      aria-invalid={problem ? true : undefined}
                      aria-describedby={problem ? `dataset-row-problem-${i}` : undefined}
                      onChange={(e) => onChange(i, { completion: e.target.value })}
                    />
                    {problem && (
                      <span id={`dataset-row-problem-${i}`} className="dataset-row-problem">
                        {problem}
                      </span>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => onDelete(i)}
                      aria-label={`Delete pair ${i + 1}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
