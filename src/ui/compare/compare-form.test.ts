import { describe, expect, it } from 'vitest';
import { loadSpecOf } from '../../shared/load-spec';
import { MODELS, type ModelOption } from '../../shared/models';
import type { RunInfo } from '../../shared/training-api';
import {
  buildSetup,
  initialForm,
  settleForm,
  type CompareForm,
  type FormContext,
  type SetupContext,
} from './compare-form';

const llama = MODELS.find((m) => m.source === 'meta-llama/Llama-3.2-1B-Instruct');
if (!llama) throw new Error('MODELS lists no Llama 3.2 1B');
const trained = (id: string): ModelOption => ({
  value: `trained/${id}`,
  label: `${id} (fine-tuned)`,
  id: `trained/${id}`,
  dtype: 'q4',
});
const choices = [...MODELS, trained('one'), trained('two')];

function run(id: string, patch: Partial<RunInfo> = {}): RunInfo {
  return {
    id,
    state: 'succeeded',
    phase: null,
    exit_code: 0,
    signal: null,
    current: 10,
    total: 10,
    progress: 100,
    started_at: '2026-01-01T00:00:00.000Z',
    ended_at: '2026-01-01T00:01:00.000Z',
    duration_ms: 60_000,
    script_path: 'training/finetune.py',
    base_model: 'meta-llama/Llama-3.2-1B-Instruct',
    output_dir: `out/${id}`,
    data_file: 'data.json',
    last_loss: 1,
    metrics_count: 10,
    model_id: `trained/${id}`,
    model_error: null,
    ...patch,
  };
}
const runs = [run('one'), run('two', { base_model: 'acme/unknown' })];
const context = (patch: Partial<FormContext> = {}): FormContext => ({
  route: null,
  runs,
  choices,
  trainedPending: false,
  ...patch,
});

describe('initialForm', () => {
  it('a ?run= link opens on that run’s held-out questions; else pasted ones', () => {
    expect(initialForm('one', 4096)).toMatchObject({ kind: 'held-out', runId: 'one' });
    expect(initialForm(null, 4096)).toMatchObject({ kind: 'pasted', runId: '' });
  });

  it('max new tokens: 256, or the app’s cap when lower', () => {
    expect(initialForm(null, 4096).maxTokens).toBe('256');
    expect(initialForm(null, 100).maxTokens).toBe('100');
  });
});

describe('settleForm', () => {
  it('nothing to follow: the same form back', () => {
    const form = initialForm(null, 4096);
    expect(settleForm(form, context())).toBe(form);
  });

  it('a new ?run= chooses that run’s held-out set; leaving the link keeps the kind', () => {
    const pasted = initialForm(null, 4096);
    expect(settleForm(pasted, context({ route: 'two' }))).toMatchObject({
      route: 'two',
      kind: 'held-out',
      runId: 'two',
    });
    const dataset: CompareForm = { ...initialForm('one', 4096), kind: 'dataset' };
    expect(settleForm(dataset, context({ route: null }))).toMatchObject({
      kind: 'dataset',
      runId: '',
    });
  });

  it('a run’s default pair fills A and B once the models are known', () => {
    const form = initialForm('one', 4096);
    expect(settleForm(form, context({ route: 'one', trainedPending: true }))).toMatchObject({
      a: '',
      b: '',
      defaultsFor: null,
    });
    expect(settleForm(form, context({ route: 'one' }))).toMatchObject({
      a: llama.value,
      b: 'trained/one',
      defaultsFor: 'one',
    });
  });

  it('a choice made by hand after the defaults stays; another run brings its own defaults', () => {
    const settled = settleForm(initialForm('one', 4096), context({ route: 'one' }));
    const byHand = { ...settled, a: 'trained/two' };
    expect(settleForm(byHand, context({ route: 'one' }))).toBe(byHand);
    // Run two's base has no in-browser model: A stays as it was, B is its trained model.
    expect(settleForm({ ...byHand, runId: 'two' }, context({ route: 'one' }))).toMatchObject({
      a: 'trained/two',
      b: 'trained/two',
      defaultsFor: 'two',
    });
  });
});

const setupContext = (patch: Partial<SetupContext> = {}): SetupContext => ({
  choices,
  cap: 4096,
  questions: { ok: true, questions: [{ prompt: 'Q?', reference: 'A.' }] },
  specOf: (option) => loadSpecOf(option, { models: choices, shaderF16: true }),
  id: 'eval-1',
  now: 1_000,
  ...patch,
});
const filled: CompareForm = {
  ...initialForm('one', 4096),
  a: llama.value,
  b: 'trained/one',
  systemPrompt: '  Be brief.  ',
};

describe('buildSetup', () => {
  it('builds the evaluation: both models with their load specs, the settings, the source', () => {
    const result = buildSetup(filled, setupContext());
    if (!result.ok) throw new Error(result.error);
    expect(result.options.map((o) => o.value)).toEqual([llama.value, 'trained/one']);
    expect(result.setup).toMatchObject({
      id: 'eval-1',
      createdAt: 1_000,
      a: { value: llama.value, label: llama.label, spec: { id: llama.id, dtype: llama.dtype } },
      b: { value: 'trained/one', spec: { id: 'trained/one', dtype: 'q4' } },
      questions: [{ prompt: 'Q?', reference: 'A.' }],
      settings: { temperature: 0, maxNewTokens: 256, systemPrompt: 'Be brief.' },
      source: { kind: 'held-out', runId: 'one' },
    });
    const pasted = buildSetup({ ...filled, kind: 'pasted' }, setupContext());
    expect(pasted.ok && pasted.setup.source).toEqual({ kind: 'pasted' });
  });

  it('refuses, in order: a missing model, a setting out of range, questions not ready or bad', () => {
    const error = (form: CompareForm, patch: Partial<SetupContext> = {}) => {
      const result = buildSetup(form, setupContext(patch));
      return result.ok ? null : result.error;
    };
    expect(error({ ...filled, b: '', temperature: 'x' })).toBe('Choose model A and model B.');
    expect(error({ ...filled, temperature: '9' })).toMatch(/^Temperature must be a number from/);
    expect(error({ ...filled, maxTokens: '0' })).toMatch(/^Max new tokens must be a whole number/);
    expect(error(filled, { questions: { ok: null, pending: 'Reading…' } })).toBe(
      'The questions are still being read; try again in a moment.',
    );
    expect(error(filled, { questions: { ok: false, error: 'Line 2 is empty.' } })).toBe(
      'Line 2 is empty.',
    );
  });

  it('no questions written yet: starts with none (the machine says what is missing)', () => {
    const result = buildSetup(
      filled,
      setupContext({ questions: { ok: false, error: 'Paste…', empty: true } }),
    );
    expect(result.ok && result.setup.questions).toEqual([]);
  });
});
