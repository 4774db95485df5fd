import type { GenerationSettings } from './generation-settings';
import type { GenerateOptions } from './worker-protocol';

/**
 * The worker's generation options from a person's generation settings — the one mapping, used by
 * the chat and by Compare alike: Max new tokens within `cap` (the model's or the page's limit), an
 * empty system prompt left out. The worker turns these into generate()'s arguments in one place
 * too (src/worker/sampling.ts).
 */
export function toGenerateOptions(
  settings: GenerationSettings,
  cap: number = Number.POSITIVE_INFINITY,
): GenerateOptions {
  return {
    maxNewTokens: Math.min(settings.maxNewTokens, cap),
    temperature: settings.temperature,
    topP: settings.topP,
    repetitionPenalty: settings.repetitionPenalty,
    systemPrompt: settings.systemPrompt || undefined,
  };
}
