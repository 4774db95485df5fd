/**
 * What the tests of a run's GGUF exports share: the listing of a run whose F16 file failed its
 * llama.cpp check (listed, not served) while Q8_0 passed, and whose Modelfile was left out.
 */
import type { GgufExports } from './training-api';

const HALF_EXPORT_MODELFILE_SKIPPED = 'the model has no chat template';

export function halfExport(
  prefix: string,
  bytes: { F16: number; Q8_0: number },
  failure: string,
): GgufExports {
  return {
    state: 'written',
    reason: null,
    files: [
      {
        name: `${prefix}-F16.gguf`,
        type: 'F16',
        bytes: bytes.F16,
        passed: false,
        failure,
        tokens_agreed: 9,
        tokens_compared: 10,
        max_abs_diff: 0.9,
      },
      {
        name: `${prefix}-Q8_0.gguf`,
        type: 'Q8_0',
        bytes: bytes.Q8_0,
        passed: true,
        failure: null,
        tokens_agreed: 10,
        tokens_compared: 10,
        max_abs_diff: 0.04,
      },
    ],
    modelfile: null,
    modelfile_skipped: HALF_EXPORT_MODELFILE_SKIPPED,
  };
}
