import { modelsWithoutF16, type ModelOption } from './models';
import type { ModelLoadSpec } from './worker-protocol';

/** Where a picker loads from and what its GPU can do: what a load spec needs besides the entry. */
export interface PickerSetting {
  /** Every entry offered (named in the message when a variant needs `shader-f16`). */
  models: readonly ModelOption[];
  host?: string | undefined;
  shaderF16: boolean;
}

/** What the worker loads for a picker entry: used by the model machine and by Compare. */
export function loadSpecOf(option: ModelOption, picker: PickerSetting): ModelLoadSpec {
  return {
    id: option.id,
    dtype: option.dtype,
    fallback: option.fallback,
    thinkTokens: option.thinkTokens,
    externalData: option.externalData,
    host: option.host ?? picker.host,
    shaderF16: picker.shaderF16,
    reuseCache: option.reuseCache,
    recommended: option.recommended,
    label: option.label,
    runsWithoutF16: modelsWithoutF16(picker.models),
    trainerReference: option.trainerReference,
    contextLimit: option.contextLimit,
  };
}
