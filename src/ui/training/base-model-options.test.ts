import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_MODEL, type TrainedModel } from '../../shared/training-api';
import { baseModelOptions } from './base-model-options';

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
      'meta-llama/Llama-3.2-1B-Instruct',
      'service-data/outputs/harbour/merged',
      '/models/qwen3-0.6b',
    ]);
    expect(options[2]?.label).toBe('harbour (fine-tuned), on the training service');
  });

  it('each value once (a base exported twice, the default among the suggestions)', () => {
    const base = model({ role: 'base', base_model: DEFAULT_BASE_MODEL });
    const options = baseModelOptions(
      [{ id: DEFAULT_BASE_MODEL, label: 'Llama 3.2 3B' }],
      [base, { ...base, id: 'trained/other-base' }],
    );
    expect(options.map((o) => o.value)).toEqual([DEFAULT_BASE_MODEL]);
  });
});
