/**
 * An evaluation ("Did training help?"): two models answer the same questions with the same
 * settings, each answer scored against the question's reference with ROUGE-L F1 (rouge-l.ts).
 * The record is what the Compare view shows, saves in IndexedDB and exports; pure, shared by the
 * evaluation machine, its store and the view.
 */
import type { GenerationSettings } from './generation-settings';
import { rougeLF1 } from './rouge-l';

/** One question: its prompt and, when known, the reference answer. */
export interface EvalQuestion {
  prompt: string;
  /** The expected answer (a dataset entry's completion); null when none was given. */
  reference: string | null;
}

/** Where the questions came from. */
export type QuestionSource =
  { kind: 'held-out'; runId: string } | { kind: 'dataset'; runId: string } | { kind: 'pasted' };

/** A model taking part: its picker value, label and the id the worker loads. */
export interface EvalModelRef {
  value: string;
  label: string;
  id: string;
}

/** One answer and its figures (see generation-stats.ts: tokens and seconds, prefill included). */
export interface EvalAnswer {
  text: string;
  numTokens: number;
  seconds: number;
  /** Cut by the token limit. */
  truncated: boolean;
}

export interface EvalRow {
  prompt: string;
  reference: string | null;
  a: EvalAnswer | null;
  b: EvalAnswer | null;
}

export type EvaluationStatus = 'running' | 'done' | 'stopped' | 'failed';

/** Version of the saved and exported record. */
export const EVALUATION_VERSION = 1;

/** An evaluation as saved and exported (JSON); scores are derived, see {@link scoreRows}. */
export interface EvaluationRecord {
  version: typeof EVALUATION_VERSION;
  id: string;
  createdAt: number;
  updatedAt: number;
  status: EvaluationStatus;
  /** Why it stopped short (failed), when it did. */
  error: string | null;
  source: QuestionSource;
  settings: GenerationSettings;
  a: EvalModelRef;
  b: EvalModelRef;
  rows: EvalRow[];
}

/** A row with both answers scored; null where there is no answer or no reference. */
export interface ScoredRow extends EvalRow {
  scoreA: number | null;
  scoreB: number | null;
  /** Which answer is closer to the reference ('tie' when equal), null when not both scored. */
  closer: 'a' | 'b' | 'tie' | null;
}

export function scoreRow(row: EvalRow): ScoredRow {
  const score = (answer: EvalAnswer | null) =>
    answer && row.reference !== null ? rougeLF1(answer.text, row.reference) : null;
  const scoreA = score(row.a);
  const scoreB = score(row.b);
  const closer =
    scoreA === null || scoreB === null
      ? null
      : scoreA === scoreB
        ? 'tie'
        : scoreB > scoreA
          ? 'b'
          : 'a';
  return { ...row, scoreA, scoreB, closer };
}

export const scoreRows = (rows: readonly EvalRow[]): ScoredRow[] => rows.map(scoreRow);

export interface ModelSummary {
  /** Questions answered. */
  answered: number;
  /** Mean ROUGE-L F1 over the answered questions with a reference; null when none. */
  meanScore: number | null;
  /** Seconds spent answering (sum over answers). */
  seconds: number;
  tokens: number;
  /** tokens ÷ seconds; null before the first answer. */
  tokensPerSecond: number | null;
}

export interface EvaluationSummary {
  a: ModelSummary;
  b: ModelSummary;
  /** Rows where both answers are scored. */
  compared: number;
  /** Rows where B's answer is closer to the reference. */
  bCloser: number;
  aCloser: number;
  ties: number;
}

function summarise(rows: readonly ScoredRow[], side: 'a' | 'b'): ModelSummary {
  const answers = rows.flatMap((r) => (r[side] ? [r[side]] : []));
  const scores = rows.flatMap((r) => {
    const s = side === 'a' ? r.scoreA : r.scoreB;
    return s === null ? [] : [s];
  });
  const seconds = answers.reduce((sum, a) => sum + a.seconds, 0);
  const tokens = answers.reduce((sum, a) => sum + a.numTokens, 0);
  return {
    answered: answers.length,
    meanScore: scores.length ? scores.reduce((s, x) => s + x, 0) / scores.length : null,
    seconds,
    tokens,
    tokensPerSecond: seconds > 0 ? tokens / seconds : null,
  };
}

export function summarize(rows: readonly ScoredRow[]): EvaluationSummary {
  const compared = rows.filter((r) => r.closer !== null);
  return {
    a: summarise(rows, 'a'),
    b: summarise(rows, 'b'),
    compared: compared.length,
    bCloser: compared.filter((r) => r.closer === 'b').length,
    aCloser: compared.filter((r) => r.closer === 'a').length,
    ties: compared.filter((r) => r.closer === 'tie').length,
  };
}

/** A score as shown and exported: three decimals. */
export const formatScore = (score: number | null): string =>
  score === null ? '—' : score.toFixed(3);
