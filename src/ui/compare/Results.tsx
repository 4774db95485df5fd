import { memo } from 'react';
import {
  formatScore,
  scoreRows,
  summarize,
  type EvalAnswer,
  type EvaluationRecord,
  type ModelSummary,
} from '../../shared/evaluation';
import { AssistantMarkdown } from '../markdown/AssistantMarkdown';
import { download, toCsv, toJson } from './export';

const fmt = (n: number | null, digits = 1) => (n === null ? '—' : n.toFixed(digits));

/** The score's definition, one click away. */
export function ScoreHelp() {
  return (
    <details className="compare-help">
      <summary>How answers are scored (ROUGE-L F1)</summary>
      <p>
        Each answer is compared with the reference answer word by word. Words are lower-cased runs
        of letters and digits (accents kept; punctuation ignored); every Chinese or Japanese
        character counts as a word. The longest common subsequence (LCS) of the two word lists gives
        precision = LCS ÷ answer words and recall = LCS ÷ reference words; the score is their
        harmonic mean F1 = 2·P·R ÷ (P + R), from 0 (no word in common, or an empty side) to 1 (the
        same words in the same order). It measures overlap with the reference, not correctness.
      </p>
    </details>
  );
}

function ModelLine({ name, label, s }: { name: string; label: string; s: ModelSummary }) {
  return (
    <li>
      <strong>
        {name}: {label}
      </strong>{' '}
      — mean score {formatScore(s.meanScore)} · {s.answered} answered in {fmt(s.seconds)} s ·{' '}
      {fmt(s.tokensPerSecond)} tokens/s
    </li>
  );
}

function Answer({ answer }: { answer: EvalAnswer | null }) {
  if (!answer) return <span className="compare-muted">—</span>;
  return (
    <>
      <AssistantMarkdown content={answer.text} streaming={false} />
      {answer.truncated && <p className="compare-muted">Cut at the token limit</p>}
    </>
  );
}

/** Summary, export buttons and the table of one evaluation (live or saved). */
export const Results = memo(function Results({ record }: { record: EvaluationRecord }) {
  const rows = scoreRows(record.rows);
  const summary = summarize(rows);
  const base = `evaluation-${new Date(record.createdAt).toISOString().slice(0, 19).replace(/:/g, '-')}`;
  return (
    <section className="compare-results" aria-labelledby="compare-results-title">
      <h2 id="compare-results-title">Results</h2>
      <ul className="compare-summary" aria-label="Summary">
        <ModelLine name="A" label={record.a.label} s={summary.a} />
        <ModelLine name="B" label={record.b.label} s={summary.b} />
        <li>
          <strong>
            B closer on {summary.bCloser} of {summary.compared}
          </strong>
          {summary.compared > 0 && ` (A closer on ${summary.aCloser}, ${summary.ties} tied)`}
          {rows.length > summary.compared &&
            ` · ${rows.length - summary.compared} question${rows.length - summary.compared === 1 ? '' : 's'} not scored (no reference, or not answered by both)`}
        </li>
      </ul>
      <ScoreHelp />
      <div className="compare-actions">
        <button
          type="button"
          className="secondary"
          onClick={() => download(toCsv(record), `${base}.csv`, 'text/csv')}
        >
          Export CSV
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => download(toJson(record), `${base}.json`, 'application/json')}
        >
          Export JSON
        </button>
      </div>
      <div
        className="compare-table-wrap"
        role="region"
        aria-label="Answers and scores"
        tabIndex={0}
      >
        <table className="compare-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Question</th>
              <th scope="col">Reference</th>
              <th scope="col">A: {record.a.label}</th>
              <th scope="col">B: {record.b.label}</th>
              <th scope="col">Score A</th>
              <th scope="col">Score B</th>
              <th scope="col">Closer</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                <td>{i + 1}</td>
                <td className="compare-text">{row.prompt}</td>
                <td className="compare-text">
                  {row.reference ?? <span className="compare-muted">none</span>}
                </td>
                <td className="compare-answer">
                  <Answer answer={row.a} />
                </td>
                <td className="compare-answer">
                  <Answer answer={row.b} />
                </td>
                <td className="compare-score">{formatScore(row.scoreA)}</td>
                <td className="compare-score">{formatScore(row.scoreB)}</td>
                <td>
                  {row.closer === null
                    ? '—'
                    : row.closer === 'tie'
                      ? 'tie'
                      : row.closer.toUpperCase()}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
});
