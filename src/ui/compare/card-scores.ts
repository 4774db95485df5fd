/**
 * A comparison as the summary a run's model card keeps (PUT /runs/{id}/evaluation): only when
 * one of A and B is a trained run's own fine-tuned model (GET /models, role not `base`); B first,
 * since B is "after". The other is `base` when it is that run's base (its browser export, or an
 * in-browser model made from the same Hub model), else `other`. Only the figures go: no
 * question or answer text. The view sends finished comparisons only.
 */
import { scoreRows, summarize, type EvaluationRecord } from '../../shared/evaluation';
import type { EvaluationModel, RunEvaluation } from '../../shared/run-evaluation';
import type { TrainedModel } from '../../shared/training-api';

type Side = 'a' | 'b';

/** Where the scores go: the run, its name (its output folder's, as GET /models names it), the body. */
export interface CardScores {
  runId: string;
  runName: string;
  evaluation: RunEvaluation;
}

/** What the view knows of each side beyond the record: the dtype loaded, the Hub source. */
export interface SideFacts {
  dtype: string | null;
  /** The Hub model the option was made from (ModelOption.source), when known. */
  source: string | null;
}

export function cardScores(
  record: EvaluationRecord,
  facts: Record<Side, SideFacts>,
  trained: readonly TrainedModel[],
  savedAt: number,
): CardScores | null {
  const fineTuned = (side: Side) =>
    trained.find(
      (m) => m.role !== 'base' && (m.id === record[side].id || m.id === record[side].value),
    );
  const own = fineTuned('b') ?? fineTuned('a');
  if (!own) return null;
  const role = (side: Side): EvaluationModel['role'] => {
    const ref = record[side];
    if (ref.id === own.id || ref.value === own.id) return 'fine-tuned';
    const listed = trained.find((m) => m.id === ref.id || m.id === ref.value);
    if (listed) return listed.run_id === own.run_id && listed.role === 'base' ? 'base' : 'other';
    // An in-browser model made from the run's base (not another run's trained model).
    const inBrowser = !ref.value.startsWith('trained/');
    return inBrowser && facts[side].source === own.base_model ? 'base' : 'other';
  };
  const model = (side: Side): EvaluationModel => ({
    id: record[side].id,
    label: record[side].label,
    role: role(side),
    dtype: facts[side].dtype,
  });
  const summary = summarize(scoreRows(record.rows));
  const figures = (side: Side) => ({
    answered: summary[side].answered,
    mean_rouge_l: summary[side].meanScore,
    tokens_per_second: summary[side].tokensPerSecond,
  });
  const { settings, source } = record;
  return {
    runId: own.run_id,
    runName: own.name,
    evaluation: {
      a: model('a'),
      b: model('b'),
      source: { kind: source.kind, run_id: source.kind === 'pasted' ? null : source.runId },
      questions: record.rows.length,
      settings: {
        temperature: settings.temperature,
        top_p: settings.topP,
        max_new_tokens: settings.maxNewTokens,
        repetition_penalty: settings.repetitionPenalty,
        system_prompt_chars: settings.systemPrompt.length,
      },
      summary: {
        a: figures('a'),
        b: figures('b'),
        compared: summary.compared,
        a_closer: summary.aCloser,
        b_closer: summary.bCloser,
        ties: summary.ties,
      },
      saved_at: new Date(savedAt).toISOString(),
    },
  };
}
