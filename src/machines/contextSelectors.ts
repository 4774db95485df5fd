/**
 * Selectors of the chat machine's context-window state, in a module of their own: only the lazily
 * loaded usage line (src/ui/chat/ContextUsage.tsx) reads them, so they stay out of the first load.
 */
import type { ChatSnapshot } from './chatMachine';
import { capOf } from './chat-cap';

/** The loaded model's usable context window and why (null before a model is ready). */
export const selectContextWindow = (s: ChatSnapshot) => s.context.contextWindow;
/** Tokens the model would see for the conversation with the draft as the next message, or null. */
export const selectUsedTokens = (s: ChatSnapshot) => s.context.usage;
/** What a turn past the window does: leave out the oldest turns, or refuse. */
export const selectWhenTooLong = (s: ChatSnapshot) => s.context.whenTooLong;
/** The longest the next reply may be: Max new tokens within the cap (what the window must hold). */
export const selectReplyTokens = (s: ChatSnapshot) =>
  Math.min(s.context.settings.maxNewTokens, capOf(s.context));
