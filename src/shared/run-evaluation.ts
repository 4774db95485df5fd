/**
 * PUT /runs/{id}/evaluation's body: the summary of a comparison saved in Compare, for the run's
 * model card — the schema the service and the mock validate it with (through the route table,
 * service-http.ts), and the check that it is the run's to keep. Apart from training-api.ts so that
 * the app's training chunk, loaded before idle, does not carry it: the app imports its types only.
 */
import * as z from 'zod/mini';
import type { RunInfo } from './training-api';

/** A count: a whole number, 0 or more. */
const count = () =>
  z.number().check(z.int('must be a whole number'), z.gte(0, 'must be 0 or more'));
/** A fraction 0…1 (a ROUGE-L F1). */
const fraction = () =>
  z.number().check(z.gte(0, 'must be 0 or more'), z.lte(1, 'must be 1 or less'));
const shortText = (max: number) =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
    );

/**
 * A model of a comparison sent to a run's card: `fine-tuned` is the run's own model, `base` its
 * base (the trainer's export of it, or the in-browser model made from it), `other` anything else.
 */
export const EvaluationModelSchema = z.strictObject({
  id: shortText(300),
  label: shortText(300),
  role: z.enum(['fine-tuned', 'base', 'other']),
  /** The weights' type the browser loaded (q4f16, fp32…). */
  dtype: z.nullable(shortText(40)),
});
export type EvaluationModel = z.infer<typeof EvaluationModelSchema>;

/** One model's figures (src/shared/evaluation.ts ModelSummary). */
export const EvaluationModelFiguresSchema = z.strictObject({
  answered: count(),
  /** Mean ROUGE-L F1 over its answered questions with a reference; null when none. */
  mean_rouge_l: z.nullable(fraction()),
  tokens_per_second: z.nullable(z.number().check(z.gte(0, 'must be 0 or more'))),
});

/**
 * PUT /runs/{id}/evaluation: the summary of a comparison saved in Compare, written to the run's
 * `compare.json` for its model card (training/model_card.py). Only the figures: no answer text.
 */
export const RunEvaluationSchema = z
  .strictObject({
    a: EvaluationModelSchema,
    b: EvaluationModelSchema,
    /** Where the questions came from: the run's held-out entries, its data file, or pasted. */
    source: z.strictObject({
      kind: z.enum(['held-out', 'dataset', 'pasted']),
      run_id: z.nullable(shortText(64)),
    }),
    questions: z.number().check(z.int('must be a whole number'), z.gte(1, 'must be 1 or more')),
    settings: z.strictObject({
      temperature: z.number().check(z.gte(0, 'must be 0 or more'), z.lte(2, 'must be 2 or less')),
      top_p: z.number().check(z.gt(0, 'must be greater than 0'), z.lte(1, 'must be 1 or less')),
      max_new_tokens: z
        .number()
        .check(z.int('must be a whole number'), z.gte(1, 'must be 1 or more')),
      repetition_penalty: z
        .number()
        .check(z.gte(1, 'must be 1 or more'), z.lte(2, 'must be 2 or less')),
      /** Characters of the system prompt (0: none); the prompt itself stays in the browser. */
      system_prompt_chars: count(),
    }),
    summary: z.strictObject({
      a: EvaluationModelFiguresSchema,
      b: EvaluationModelFiguresSchema,
      /** Questions where both answers were scored. */
      compared: count(),
      a_closer: count(),
      b_closer: count(),
      ties: count(),
    }),
    /** When the browser saved it (ISO time). */
    saved_at: z.iso.datetime({ error: 'must be an ISO date-time (2026-01-31T12:00:00Z)' }),
  })
  .check(
    z.refine(
      (e) => e.summary.a_closer + e.summary.b_closer + e.summary.ties === e.summary.compared,
      {
        error: 'must be a_closer + b_closer + ties',
        path: ['summary', 'compared'],
      },
    ),
    z.refine(
      (e) =>
        Math.max(e.summary.compared, e.summary.a.answered, e.summary.b.answered) <= e.questions,
      { error: 'must not count more than `questions`', path: ['summary'] },
    ),
  );
export type RunEvaluation = z.infer<typeof RunEvaluationSchema>;

/**
 * Why an evaluation is not the run's to keep (the service's and the mock's 400), or null: one of
 * A and B must be the run's own fine-tuned model, by the id GET /models lists for it.
 */
export function evaluationNotOfRun(
  run: Pick<RunInfo, 'id' | 'model_id' | 'model_error'>,
  evaluation: Pick<RunEvaluation, 'a' | 'b'>,
): string | null {
  const own = run.model_id;
  if (own === null)
    return `Run ${run.id} has no browser-ready model${run.model_error ? ` (${run.model_error})` : ''}, so Compare cannot have measured it`;
  const { a, b } = evaluation;
  // "fine-tuned" is this run's model: another run's is "other", so the card knows which is which.
  const stranger = (['a', 'b'] as const).find(
    (side) => evaluation[side].role === 'fine-tuned' && evaluation[side].id !== own,
  );
  if (stranger)
    return `Invalid body: ${stranger}.role "fine-tuned" is for run ${run.id}'s own model ${own}, not ${evaluation[stranger].id} (another model is "base" or "other")`;
  if (a.role === 'fine-tuned' || b.role === 'fine-tuned') return null;
  return `Invalid body: neither a nor b is run ${run.id}'s fine-tuned model ${own} (a is ${a.id} as ${a.role}, b is ${b.id} as ${b.role})`;
}
