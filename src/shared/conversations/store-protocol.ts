import type { Conversation, ConversationSummary } from './types';

/** Why storage failed, as a value the machine can show (never thrown at the UI). */
export interface StoreError {
  kind: 'quota' | 'unavailable' | 'blocked' | 'failed';
  message: string;
}

/** Commands to the persistence actor. */
export type StoreCommand =
  | { type: 'store.list' }
  | { type: 'store.get'; id: string }
  | { type: 'store.put'; conversation: Conversation }
  | { type: 'store.rename'; id: string; title: string }
  | { type: 'store.delete'; id: string };

/** What the persistence actor sends back to its parent. */
export type StoreResult =
  | { type: 'store.listed'; conversations: ConversationSummary[] }
  | { type: 'store.loaded'; conversation: Conversation }
  | { type: 'store.saved'; summary: ConversationSummary }
  | { type: 'store.deleted'; id: string }
  | { type: 'store.failed'; op: StoreCommand['type']; error: StoreError };
