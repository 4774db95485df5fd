/**
 * What the tests of the "checked on this GPU" feature share: a trained model whose export carries
 * the trainer's reference, and the outcome of a replay that differed from it.
 */
import type { ModelOption } from './models';
import type { ReferenceCheck, ReplayToken } from './reference-check';

/** A model of the training service, as the Runs list adds it: exported with a reference. */
export const TRAINED_WITH_REFERENCE: ModelOption = {
  value: 'trained/harbour',
  label: 'harbour (fine-tuned)',
  id: 'trained/harbour',
  dtype: 'q4f16',
  fallback: { id: 'trained/harbour', dtype: 'q4' },
  host: 'http://127.0.0.1:8000/',
  trainerReference: true,
};

/**
 * A replay of 16 steps that first differed at a clear `step` (every step up to it compared): by
 * default PyTorch's token 87 against this GPU's 512, a lead of 2.41, on q4 with fp32 to try.
 */
export function divergedCheck({
  step,
  dtype = 'q4',
  expected = { id: 87 },
  got = { id: 512 },
  lead = 2.41,
  alternative = 'fp32',
}: {
  step: number;
  dtype?: string;
  expected?: ReplayToken;
  got?: ReplayToken;
  lead?: number;
  alternative?: string | null;
}): ReferenceCheck {
  return {
    result: 'diverged',
    dtype,
    steps: 16,
    compared: step,
    divergence: { step, expected, got, lead },
    alternative,
  };
}
