import { describe, expect, it } from 'vitest';
import type { TrainedModel } from '../shared/training-api';
import { runModel } from './trainingSelectors';

const model = (id: string, role: TrainedModel['role']): TrainedModel => ({
  id,
  name: id.slice('trained/'.length),
  run_id: 'run-1',
  base_model: 'base',
  output_dir: '/out/x',
  variants: ['fp32'],
  bytes: 1,
  created_at: '2026-11-24T00:00:00Z',
  role,
});

describe('runModel', () => {
  // A run whose web/ was incomplete but whose base export was listed once offered "Load in chat"
  // for the base under the run's name.
  it("is the run's fine-tuned model, never its base export", () => {
    const base = model('trained/x-base', 'base');
    const tuned = model('trained/x', 'fine-tuned');
    expect(runModel([base], 'run-1')).toBeUndefined();
    expect(runModel([base, tuned], 'run-1')).toBe(tuned);
    expect(runModel([tuned], 'run-2')).toBeUndefined();
  });
});
