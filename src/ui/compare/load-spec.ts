import type { ModelOption } from '../../shared/models';
import type { ModelLoadSpec } from '../../shared/worker-protocol';

/**
 * What the worker loads for a picker entry: the model machine's `toLoadSpec` for one option.
 * Kept here because importing modelMachine into this lazy chunk made the bundler split xstate
 * out of the entry (+1.7 KB of first-load JS); to be replaced by a shared helper both use.
 */
export function loadSpecOf(
  option: ModelOption,
  picker: { host?: string | undefined; shaderF16: boolean },
): ModelLoadSpec {
  return {
    id: option.id,
    dtype: option.dtype,
    fallback: option.fallback,
    thinkTokens: option.thinkTokens,
    externalData: option.externalData,
    host: option.host ?? picker.host,
    shaderF16: picker.shaderF16,
  };
}
