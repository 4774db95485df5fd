import { useSelector } from '@xstate/react';
import { summarize, scoreRows } from '../../shared/evaluation';
import { type EvaluationActorRef } from '../../machines/evaluationMachine';
import {
  selectChecks,
  selectLiveTps,
  selectLoadFiles,
  selectPartial,
  selectPhase,
  selectRows,
  selectSetup,
  selectSide,
  selectStatusText,
} from '../../machines/evaluationSelectors';
import { ProgressBar } from '../chat/ProgressBar';
import { ReferenceCheckStatus } from '../chat/ReferenceCheckStatus';

/**
 * Per model: questions answered of all (a progress bar), speed, and for a model the trainer
 * exported its check on this GPU; the load under way, per file.
 */
export function Progress({ actor }: { actor: EvaluationActorRef }) {
  const phase = useSelector(actor, selectPhase);
  const rows = useSelector(actor, selectRows);
  const setup = useSelector(actor, selectSetup);
  const files = useSelector(actor, selectLoadFiles);
  const status = useSelector(actor, selectStatusText);
  const liveTps = useSelector(actor, selectLiveTps);
  const side = useSelector(actor, selectSide);
  const partial = useSelector(actor, selectPartial);
  const checks = useSelector(actor, selectChecks);
  if (!setup) return null;
  const summary = summarize(scoreRows(rows));
  const loading = phase === 'loadingA' || phase === 'loadingB';
  const answering = phase === 'answeringA' || phase === 'answeringB';
  const line = (name: 'A' | 'B', label: string, s: (typeof summary)['a']) => {
    const current = side === name.toLowerCase();
    const state =
      current && loading
        ? ' · loading'
        : current && answering
          ? ` · answering question ${Math.min(s.answered + 1, rows.length)}${liveTps ? ` (${liveTps.toFixed(1)} tokens/s)` : ''}`
          : '';
    return (
      <div className="compare-progress-line">
        <label htmlFor={`compare-progress-${name}`}>
          {name}: {label} — {s.answered} of {rows.length} answered
          {s.tokensPerSecond !== null ? ` · ${s.tokensPerSecond.toFixed(1)} tokens/s` : ''}
          {state}
        </label>
        <progress id={`compare-progress-${name}`} max={rows.length} value={s.answered} />
        <ReferenceCheckStatus check={name === 'A' ? checks.a : checks.b} label={name} />
      </div>
    );
  };
  return (
    <section className="compare-progress" aria-label="Progress">
      {line('A', setup.a.label, summary.a)}
      {line('B', setup.b.label, summary.b)}
      {answering && partial && <p className="compare-muted compare-partial">Writing: {partial}</p>}
      {loading && (
        <div className="loading" aria-live="polite">
          <p className="status-text">{status}</p>
          {files.map((f) => (
            <ProgressBar key={f.file} file={f.file} progress={f.progress} total={f.total} />
          ))}
        </div>
      )}
    </section>
  );
}
