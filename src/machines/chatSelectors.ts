/** Snapshot selectors of the chat machine: the one place components read it through. */
import type { ChatContext, ChatSnapshot } from './chatMachine';
import { MAX_TOKENS_LIMIT } from '../shared/token-limits';

/**
 * The highest Max new tokens: the `?maxTokens=` cap, or — when none was given — the default cap
 * lifted to what the loaded model recommends (DeepSeek R1: 2,048).
 */
export function capOf(
  context: Pick<ChatContext, 'maxNewTokens' | 'recommended' | 'capExplicit'>,
): number {
  if (context.capExplicit) return context.maxNewTokens;
  const wanted = context.recommended?.maxNewTokens ?? 0;
  return Math.min(MAX_TOKENS_LIMIT, Math.max(context.maxNewTokens, wanted));
}

export const selectMessages = (s: ChatSnapshot) => s.context.messages;
export const selectDraft = (s: ChatSnapshot) => s.context.draft;
export const selectIsGenerating = (s: ChatSnapshot) =>
  s.matches('generating') || s.matches('stopping') || s.matches('resetting');
export const selectIsReady = (s: ChatSnapshot) => !s.matches('unavailable');
export const selectStats = (s: ChatSnapshot) => s.context.stats;
export const selectChatError = (s: ChatSnapshot) => s.context.error;
/** The conversation's generation settings. */
export const selectSettings = (s: ChatSnapshot) => s.context.settings;
/** The `?maxTokens=` cap (the highest Max new tokens). */
export const selectMaxTokensCap = (s: ChatSnapshot) => capOf(s.context);
/** What the loaded model recommends (shown beside the settings), or null. */
export const selectRecommended = (s: ChatSnapshot) => s.context.recommended;
