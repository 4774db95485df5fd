/** Snapshot selectors of the app machine: the one place components read it through. */
import type { AppSnapshot } from './appMachine';

export const selectGate = (s: AppSnapshot): 'checking' | 'unsupported' | 'supported' => s.value;
export const selectModelRef = (s: AppSnapshot) => s.context.model;
export const selectChatRef = (s: AppSnapshot) => s.context.chat;
export const selectConversationsRef = (s: AppSnapshot) => s.context.conversations;
export const selectStoredModelsRef = (s: AppSnapshot) => s.context.storedModels;
export const selectWorkerRef = (s: AppSnapshot) => s.context.worker;
export const selectMaxNewTokensCap = (s: AppSnapshot) => s.context.input.maxNewTokens;
/** The page's `?stallSeconds=` in ms (undefined: the liveness rule's default), chat and Compare alike. */
export const selectReplyStallMs = (s: AppSnapshot) => s.context.input.replyStallMs;
