/** Snapshot selectors of the conversations machine: the one place components read it through. */
import type { ConversationsSnapshot } from './conversationsMachine';

/** Saved conversations, newest first. */
export const selectConversationList = (s: ConversationsSnapshot) => s.context.list;
/** The id of the conversation on screen (null for a new, unsaved chat). */
export const selectCurrentId = (s: ConversationsSnapshot) => s.context.current?.id ?? null;
export const selectCurrentConversation = (s: ConversationsSnapshot) => s.context.current;
export const selectStorageError = (s: ConversationsSnapshot) => s.context.error;
export const selectImportError = (s: ConversationsSnapshot) => s.context.importError;
/** The `?maxTokens=` cap an imported file's Max new tokens is clamped to. */
export const selectMaxTokensCap = (s: ConversationsSnapshot) => s.context.maxTokensCap;
