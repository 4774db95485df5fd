/**
 * How a model's recommended settings read in the settings panel. Its own module so it travels in
 * the settings panel's lazy chunk, not the first load.
 */
import type { GenerationSettings } from './generation-settings';

/** "temperature 0.6, top p 0.95, 2,048 new tokens, no system prompt": what a model recommends. */
export function describeRecommended(recommended: Partial<GenerationSettings>): string {
  const parts: string[] = [];
  if (recommended.temperature !== undefined)
    parts.push(
      recommended.temperature === 0 ? 'greedy decoding' : `temperature ${recommended.temperature}`,
    );
  if (recommended.topP !== undefined) parts.push(`top p ${recommended.topP}`);
  if (recommended.maxNewTokens !== undefined)
    parts.push(`${recommended.maxNewTokens.toLocaleString('en-US')} new tokens`);
  if (recommended.repetitionPenalty !== undefined)
    parts.push(`repetition penalty ${recommended.repetitionPenalty}`);
  if (recommended.systemPrompt !== undefined)
    parts.push(recommended.systemPrompt ? 'its own system prompt' : 'no system prompt');
  return parts.join(', ');
}
