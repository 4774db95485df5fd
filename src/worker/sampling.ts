import { DEFAULT_MAX_NEW_TOKENS, isSampling } from '../shared/generation-settings';
import type { GenerateOptions } from '../shared/worker-protocol';

/** The part of transformers.js's generate() arguments that the generation settings decide. */
export interface SamplingArgs {
  do_sample: boolean;
  temperature?: number;
  top_p?: number;
  repetition_penalty: number;
  max_new_tokens: number;
}

/**
 * The engine's generate() arguments for a request's options — the one mapping, whoever asked (the
 * chat, Compare, 'Format Input'). Temperature 0 (or none) is greedy and repeatable; above 0 samples
 * with top p (1 when unset).
 */
export function samplingArgs(options: GenerateOptions | undefined): SamplingArgs {
  const temperature = options?.temperature;
  const sampling =
    temperature !== undefined && isSampling({ temperature })
      ? { do_sample: true, temperature, top_p: options?.topP ?? 1 }
      : { do_sample: false };
  return {
    ...sampling,
    repetition_penalty: options?.repetitionPenalty ?? 1,
    max_new_tokens: options?.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS,
  };
}
