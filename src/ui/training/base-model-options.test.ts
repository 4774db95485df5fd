import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_MODEL, type TrainedModel } from '../../shared/training-api';
import { UNGATED_ALTERNATIVE, baseModelOptions, isGatedBase } from './base-model-options';

const model = (patch: Partial<TrainedModel>): TrainedModel => ({
  id: 'trained/harbour',
  name: 'harbour',
  run_id: 'r1',
  base_model: 'meta-llama/Llama-3.2-1B-Instruct',
  output_dir: 'service-data/outputs/harbour',
  variants: ['q4'],
  bytes: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  role: 'fine-tuned',
  ...patch,
});

describe('baseModelOptions', () => {
  it('the default, the in-browser models, a trained model’s merged folder and an exported base', () => {
    const options = baseModelOptions(
      [{ id: 'meta-llama/Llama-3.2-1B-Instruct', label: 'Llama 3.2 1B' }],
      [
        model({}),
        model({ id: 'trained/harbour-base', role: 'base', base_model: '/models/qwen3-0.6b' }),
      ],
    );
    expect(options.map((o) => o.value)).toEqual([
      DEFAULT_BASE_MODEL,
      UNGATED_ALTERNATIVE,
      'meta-llama/Llama-3.2-1B-Instruct',
      'service-data/outputs/harbour/merged',
      '/models/qwen3-0.6b',
    ]);
    expect(options[3]?.label).toBe('harbour (fine-tuned), on the training service');
  });

  it('each value once (a base exported twice, the default among the suggestions)', () => {
    const base = model({ role: 'base', base_model: DEFAULT_BASE_MODEL });
    const options = baseModelOptions(
      [{ id: DEFAULT_BASE_MODEL, label: 'Llama 3.2 3B' }],
      [base, { ...base, id: 'trained/other-base' }],
    );
    expect(options.map((o) => o.value)).toEqual([DEFAULT_BASE_MODEL, UNGATED_ALTERNATIVE]);
  });

  it('marks the bases the Hub cache holds "downloaded", and adds the ones not suggested yet', () => {
    const options = baseModelOptions([], [], [DEFAULT_BASE_MODEL, 'org/cached']);
    expect(options[0]).toEqual({
      value: DEFAULT_BASE_MODEL,
      label: 'the default base (3B, instruct) (downloaded)',
    });
    expect(options.at(-1)).toEqual({
      value: 'org/cached',
      label: 'on the training service (downloaded)',
    });
    expect(options.filter((o) => o.value === DEFAULT_BASE_MODEL)).toHaveLength(1);
  });
});

describe('isGatedBase', () => {
  it("Meta's Llama and Google's Gemma ids; not Qwen, not a folder", () => {
    expect(isGatedBase(DEFAULT_BASE_MODEL)).toBe(true);
    expect(isGatedBase('google/gemma-2-2b-it')).toBe(true);
    expect(isGatedBase(UNGATED_ALTERNATIVE)).toBe(false);
    expect(isGatedBase('/models/meta-llama/Llama-3.2-1B')).toBe(false);
  });
});
