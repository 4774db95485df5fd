/** Snapshot selectors of the chat machine: the one place components read it through. */
import type { ChatSnapshot } from './chatMachine';
import { capOf } from './chat-cap';

export { capOf };

export const selectMessages = (s: ChatSnapshot) => s.context.messages;
export const selectDraft = (s: ChatSnapshot) => s.context.draft;
export const selectIsGenerating = (s: ChatSnapshot) => s.matches('replying');
export const selectIsReady = (s: ChatSnapshot) => !s.matches('unavailable');
export const selectStats = (s: ChatSnapshot) => s.context.stats;
export const selectChatError = (s: ChatSnapshot) => s.context.error;
/** The conversation's generation settings. */
export const selectSettings = (s: ChatSnapshot) => s.context.settings;
/** The `?maxTokens=` cap (the highest Max new tokens). */
export const selectMaxTokensCap = (s: ChatSnapshot) => capOf(s.context);
/** What the loaded model recommends (shown beside the settings), or null. */
export const selectRecommended = (s: ChatSnapshot) => s.context.recommended;
export const selectHasMessages = (s: ChatSnapshot) => s.context.messages.length > 0;
export const selectTps = (s: ChatSnapshot) => s.context.tps;
export const selectNumTokens = (s: ChatSnapshot) => s.context.numTokens;
export const selectSeconds = (s: ChatSnapshot) => s.context.seconds;
/**
 * The last run continued the reply shown last: the reply's figures (every run's) count more tokens
 * than the run's own.
 */
export const selectContinued = (s: ChatSnapshot) =>
  (s.context.messages.at(-1)?.figures?.numTokens ?? 0) > (s.context.numTokens ?? Infinity);
/** Whether a chat (if there is one) is replying. */
export const selectIsChatBusy = (s: ChatSnapshot | undefined) =>
  s !== undefined && selectIsGenerating(s);
/** How many of the first messages the model no longer saw in the latest reply's prompt. */
export const selectOmitted = (s: ChatSnapshot) => s.context.omitted;
