import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EvaluationStore } from '../../actors/evaluation-store';
import { errorMessage } from '../../shared/errors';

export const savedKey = ['evaluations', 'saved'] as const;

/** Saved evaluations (IndexedDB), newest first; Open shows one, Delete removes it. */
export function SavedList({
  store,
  refreshOn,
  openedId,
  onOpen,
}: {
  store: EvaluationStore;
  /** Changes when something was saved (the list is read again). */
  refreshOn: unknown;
  openedId: string | null;
  onOpen: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const saved = useQuery({ queryKey: savedKey, queryFn: () => store.list(), retry: false });
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: savedKey });
  }, [refreshOn, queryClient]);
  return (
    <section className="compare-saved" aria-labelledby="compare-saved-title">
      <h2 id="compare-saved-title">Saved evaluations</h2>
      {saved.isError && (
        <p role="alert" className="chat-error">
          {errorMessage(saved.error)}
        </p>
      )}
      {saved.data?.length === 0 && (
        <p className="compare-muted">None yet: each comparison is saved here as it runs.</p>
      )}
      <ul className="compare-saved-list">
        {saved.data?.map((e) => (
          <li key={e.id}>
            <button
              type="button"
              className="link-button"
              aria-current={e.id === openedId ? 'true' : undefined}
              onClick={() => onOpen(e.id)}
            >
              {e.a} vs {e.b}
            </button>{' '}
            <span className="compare-muted">
              · {e.questions} question{e.questions === 1 ? '' : 's'} · {e.status} ·{' '}
              {new Date(e.updatedAt).toLocaleString()}
            </span>{' '}
            <button
              type="button"
              className="link-button"
              aria-label={`Delete the evaluation ${e.a} vs ${e.b} of ${new Date(e.updatedAt).toLocaleString()}`}
              onClick={() =>
                void store
                  .remove(e.id)
                  .then(() => queryClient.invalidateQueries({ queryKey: savedKey }))
              }
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
