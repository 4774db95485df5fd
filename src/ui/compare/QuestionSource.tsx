import { useQuery } from '@tanstack/react-query';
import type { CompareServices } from '../../actors/compare-services';
import { ApiError } from '../../shared/api-error';
import { errorMessage } from '../../shared/errors';
import type { EvalQuestion } from '../../shared/evaluation';
import type { RunInfo } from '../../shared/training-api';
import { fromEntries, parseQuestions, type ParsedQuestions } from './questions';

export type SourceKind = 'held-out' | 'dataset' | 'pasted';

/** The message for a split that cannot be used: none held out (404), or split.json malformed (422). */
export function splitProblem(runId: string, error: unknown): string {
  if (error instanceof ApiError && error.status === 404)
    return `Run ${runId} has no held-out questions: ${error.message} Use all of its dataset's entries, or paste questions.`;
  if (error instanceof ApiError && error.status === 422)
    return `The held-out questions of run ${runId} cannot be read (split.json is malformed): ${error.message} Use all of its dataset's entries, or paste questions.`;
  return `Could not read the held-out questions of run ${runId}: ${errorMessage(error)}`;
}

/** The questions the chosen source gives, or why there are none. */
export function useQuestions(
  compare: CompareServices,
  kind: SourceKind,
  runId: string,
  pasted: string,
): ParsedQuestions | { ok: null; pending: string } {
  const split = useQuery({
    ...compare.queries.split(runId),
    enabled: kind === 'held-out' && runId !== '',
  });
  const dataset = useQuery({
    ...compare.queries.dataset(runId),
    enabled: kind === 'dataset' && runId !== '',
  });
  if (kind === 'pasted') return parseQuestions(pasted);
  if (runId === '') return { ok: false, error: 'Choose a finished run, or paste questions.' };
  if (kind === 'held-out') {
    if (split.isError) return { ok: false, error: splitProblem(runId, split.error) };
    if (!split.data) return { ok: null, pending: 'Reading the held-out questions…' };
    return { ok: true, questions: fromEntries(split.data.held_out) };
  }
  if (dataset.isError)
    return {
      ok: false,
      error: `Could not read the dataset of run ${runId}: ${errorMessage(dataset.error)}`,
    };
  if (!dataset.data) return { ok: null, pending: 'Reading the dataset…' };
  return { ok: true, questions: fromEntries(dataset.data.entries) };
}

export function QuestionSource({
  kind,
  onKind,
  runId,
  onRun,
  runs,
  pasted,
  onPasted,
  questions,
}: {
  kind: SourceKind;
  onKind: (kind: SourceKind) => void;
  runId: string;
  onRun: (runId: string) => void;
  runs: readonly RunInfo[];
  pasted: string;
  onPasted: (text: string) => void;
  questions: ParsedQuestions | { ok: null; pending: string };
}) {
  const finished = runs.filter((r) => r.state === 'succeeded');
  const option = (value: SourceKind, label: string) => (
    <label className="compare-radio">
      <input
        type="radio"
        name="question-source"
        value={value}
        checked={kind === value}
        onChange={() => onKind(value)}
      />{' '}
      {label}
    </label>
  );
  return (
    <fieldset className="compare-fieldset">
      <legend>Questions</legend>
      {option('held-out', "The run's held-out entries (not trained on)")}
      {option('dataset', "All entries of the run's dataset")}
      {option('pasted', 'Questions I paste or type')}
      {kind !== 'pasted' && (
        <label className="compare-field">
          Run
          <select value={runId} onChange={(e) => onRun(e.target.value)}>
            <option value="">Choose a finished run…</option>
            {finished.map((r) => (
              <option key={r.id} value={r.id}>
                {r.output_dir.split('/').filter(Boolean).pop() ?? r.id} · {r.base_model} · {r.id}
              </option>
            ))}
          </select>
        </label>
      )}
      {kind === 'pasted' && (
        <label className="compare-field">
          Questions (one per line; a tab, then the reference answer, is optional; or a JSON array of
          {' {prompt, completion}'} entries)
          <textarea rows={6} value={pasted} onChange={(e) => onPasted(e.target.value)} />
        </label>
      )}
      <QuestionsStatus questions={questions} />
    </fieldset>
  );
}

function QuestionsStatus({
  questions,
}: {
  questions: ParsedQuestions | { ok: null; pending: string };
}) {
  if (questions.ok === null) return <p className="compare-muted">{questions.pending}</p>;
  if (!questions.ok && questions.empty) return <p className="compare-muted">{questions.error}</p>;
  if (!questions.ok)
    return (
      <p className="chat-error" role="alert">
        {questions.error}
      </p>
    );
  const withReference = questions.questions.filter(
    (q: EvalQuestion) => q.reference !== null,
  ).length;
  return (
    <p className="compare-muted" aria-live="polite">
      {questions.questions.length} question{questions.questions.length === 1 ? '' : 's'},{' '}
      {withReference} with a reference answer (only those are scored).
    </p>
  );
}
