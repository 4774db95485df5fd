import { describe, expect, it } from 'vitest';
import { RunEvaluationSchema } from '../../shared/run-evaluation';
import type { EvalModelRef, EvalRow, EvaluationRecord } from '../../shared/evaluation';
import { defaultSettings } from '../../shared/generation-settings';
import type { TrainedModel } from '../../shared/training-api';
import { cardScores, type SideFacts } from './card-scores';

const trainedModel = (patch: Partial<TrainedModel>): TrainedModel => ({
  id: 'trained/harbour',
  name: 'harbour',
  run_id: 'run-1',
  base_model: 'Qwen/Qwen2.5-0.5B-Instruct',
  output_dir: '/out/harbour',
  variants: ['fp32'],
  bytes: 1,
  created_at: '2026-11-27T10:00:00Z',
  role: 'fine-tuned',
  ...patch,
});
const HARBOUR = trainedModel({});
const HARBOUR_BASE = trainedModel({ id: 'trained/harbour-base', name: 'harbour', role: 'base' });
const OTHER_RUN = trainedModel({ id: 'trained/lighthouse', name: 'lighthouse', run_id: 'run-2' });
const TRAINED = [HARBOUR, HARBOUR_BASE, OTHER_RUN];

const ref = (value: string, label = value): EvalModelRef => ({ value, label, id: value });
const QWEN = { value: 'qwen-0.5b', label: 'Qwen 0.5B', id: 'onnx-community/Qwen2.5-0.5B' };
const answer = (text: string) => ({ text, numTokens: 4, seconds: 0.5, truncated: false });
const ROWS: EvalRow[] = [
  { prompt: 'Q1', reference: 'the harbour', a: answer('no'), b: answer('the harbour') },
  { prompt: 'Q2', reference: 'the lighthouse', a: answer('the lighthouse'), b: answer('no') },
  { prompt: 'Q3', reference: null, a: answer('x'), b: answer('y') },
];

function record(a: EvalModelRef, b: EvalModelRef, patch: Partial<EvaluationRecord> = {}) {
  return {
    version: 1,
    id: 'e1',
    createdAt: 0,
    updatedAt: 0,
    status: 'done',
    error: null,
    source: { kind: 'held-out', runId: 'run-1' },
    settings: { ...defaultSettings(64), systemPrompt: 'Be brief.' },
    a,
    b,
    rows: ROWS,
    ...patch,
  } satisfies EvaluationRecord;
}

const facts = (a: Partial<SideFacts> = {}, b: Partial<SideFacts> = {}) => ({
  a: { dtype: 'q4f16', source: null, ...a },
  b: { dtype: 'fp32', source: null, ...b },
});
const AT = Date.UTC(2026, 10, 27, 10, 0, 0);

describe('cardScores', () => {
  it("B the run's model, A the in-browser model of its base: a body the service's schema takes", () => {
    const target = cardScores(
      record(QWEN, ref(HARBOUR.id, 'harbour (fine-tuned)')),
      facts({ source: HARBOUR.base_model }),
      TRAINED,
      AT,
    );
    expect(target?.runId).toBe('run-1');
    expect(target?.runName).toBe('harbour');
    expect(RunEvaluationSchema.parse(target?.evaluation)).toEqual({
      a: { id: QWEN.id, label: 'Qwen 0.5B', role: 'base', dtype: 'q4f16' },
      b: { id: HARBOUR.id, label: 'harbour (fine-tuned)', role: 'fine-tuned', dtype: 'fp32' },
      source: { kind: 'held-out', run_id: 'run-1' },
      questions: 3,
      settings: {
        temperature: 0,
        top_p: defaultSettings().topP,
        max_new_tokens: 64,
        repetition_penalty: defaultSettings().repetitionPenalty,
        system_prompt_chars: 9,
      },
      summary: {
        a: { answered: 3, mean_rouge_l: 0.5, tokens_per_second: 8 },
        b: { answered: 3, mean_rouge_l: 0.5, tokens_per_second: 8 },
        compared: 2,
        a_closer: 1,
        b_closer: 1,
        ties: 0,
      },
      saved_at: '2026-11-27T10:00:00.000Z',
    });
  });

  it("the run's base export is its base; another run's model, same base, is 'other'", () => {
    const withExport = cardScores(
      record(ref(HARBOUR_BASE.id), ref(HARBOUR.id)),
      facts(),
      TRAINED,
      AT,
    );
    expect(withExport?.evaluation.a.role).toBe('base');
    // Another run's model, trained from the same Hub base (the same source), is not its base.
    const otherRun = cardScores(
      record(ref(OTHER_RUN.id), ref(HARBOUR.id)),
      facts({ source: HARBOUR.base_model }),
      TRAINED,
      AT,
    );
    expect(otherRun?.runId).toBe('run-1');
    expect(otherRun?.evaluation.a.role).toBe('other');
    // A picker model made from another Hub model is 'other' too.
    const unrelated = cardScores(record(QWEN, ref(HARBOUR.id)), facts(), TRAINED, AT);
    expect(unrelated?.evaluation.a.role).toBe('other');
  });

  it("B's run first; A's run when only A is a run's model; none without one; pasted has no run", () => {
    const both = cardScores(record(ref(OTHER_RUN.id), ref(HARBOUR.id)), facts(), TRAINED, AT);
    expect(both?.runId).toBe('run-1');
    const onlyA = cardScores(
      record(ref(OTHER_RUN.id), QWEN, { source: { kind: 'pasted' } }),
      facts(),
      TRAINED,
      AT,
    );
    expect(onlyA?.runId).toBe('run-2');
    expect(onlyA?.evaluation.a.role).toBe('fine-tuned');
    expect(onlyA?.evaluation.source).toEqual({ kind: 'pasted', run_id: null });
    expect(cardScores(record(QWEN, QWEN), facts(), TRAINED, AT)).toBeNull();
    // A base export alone is no run's own model.
    expect(cardScores(record(QWEN, ref(HARBOUR_BASE.id)), facts(), TRAINED, AT)).toBeNull();
  });
});
