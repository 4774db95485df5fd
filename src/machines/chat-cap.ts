/**
 * The chat's reply-length cap, in a module of its own: the chat machine uses it, and so do its
 * selectors, which import the machine's types (one module each way would be an import circle).
 */
import type { GenerationSettings } from '../shared/generation-settings';
import { MAX_TOKENS_LIMIT } from '../shared/token-limits';

export interface CapInput {
  /** The `?maxTokens=` cap, or the default one. */
  maxNewTokens: number;
  /** The loaded model's recommended settings. */
  recommended: Partial<GenerationSettings> | null;
  /** `?maxTokens=` was given: it is the cap, whatever the model recommends. */
  capExplicit: boolean;
}

/**
 * The highest Max new tokens: the `?maxTokens=` cap, or — when none was given — the default cap
 * lifted to what the loaded model recommends (DeepSeek R1: 2,048).
 */
export function capOf(context: CapInput): number {
  if (context.capExplicit) return context.maxNewTokens;
  const wanted = context.recommended?.maxNewTokens ?? 0;
  return Math.min(MAX_TOKENS_LIMIT, Math.max(context.maxNewTokens, wanted));
}
