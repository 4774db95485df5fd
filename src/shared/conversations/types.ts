import type { GenerationSettings } from '../generation-settings';
import type { WhenTooLong } from '../worker-protocol';

/** Figures of one reply, as shown under it. */
export interface ReplyFigures {
  numTokens: number;
  seconds: number;
  tps?: number | undefined;
}

/** A message as stored and shown: assistant messages may carry reasoning and figures. */
export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
  thinking?: string | undefined;
  figures?: ReplyFigures | undefined;
  /** How a reply ended when not by the model's own end: Stop, or the token limit (N tokens). */
  ended?: { by: 'stop' } | { by: 'limit'; limit: number } | undefined;
  /**
   * The reply stopped before it was done: stopped by the user, or the page was reloaded while it
   * streamed (a message saved with `streaming` is read back as interrupted).
   */
  interrupted?: boolean | undefined;
  /** Saved while still streaming (only ever true in storage). */
  streaming?: boolean | undefined;
  /**
   * The other versions of this message (earlier replies before a Regenerate, the text before an
   * Edit), each with the messages that followed it: a branch the pager brings back.
   */
  alternatives?: ConversationMessage[][] | undefined;
  /** This version's place among all versions (0-based); absent = the last. */
  version?: number | undefined;
}

/** One saved conversation (what the persistence actor stores). */
export interface Conversation {
  id: string;
  /** Set by rename; otherwise the title is the first user message. */
  customTitle?: string | undefined;
  createdAt: number;
  updatedAt: number;
  /** The model the conversation was held with ('' before any model was loaded). */
  modelId: string;
  settings: GenerationSettings;
  messages: ConversationMessage[];
  /** 'refuse': a turn past the model's window is refused; absent: the oldest turns are left out. */
  whenTooLong?: WhenTooLong | undefined;
  /** How many of the first messages the model no longer saw in the latest reply; absent: none. */
  omitted?: number | undefined;
}

/** What the Conversations list shows. */
export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
}

export const UNTITLED = 'New chat';

/** An entry's name: its custom title, else the first user message (trimmed, one line). */
export function titleOf(conversation: Pick<Conversation, 'customTitle' | 'messages'>): string {
  const custom = conversation.customTitle?.trim();
  if (custom) return custom;
  const first = conversation.messages.find((m) => m.role === 'user')?.content.trim() ?? '';
  const line = first.replace(/\s+/g, ' ');
  if (!line) return UNTITLED;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function summaryOf(conversation: Conversation): ConversationSummary {
  return { id: conversation.id, title: titleOf(conversation), updatedAt: conversation.updatedAt };
}

/** Newest first. */
export function sortSummaries(list: ConversationSummary[]): ConversationSummary[] {
  return [...list].sort((a, b) => b.updatedAt - a.updatedAt);
}

/** A record read back after a reload: a reply saved mid-stream is marked interrupted. */
export function reviveMessages(messages: ConversationMessage[]): ConversationMessage[] {
  return messages.map((m) => {
    if (!m.streaming) return m;
    const { streaming: _streaming, ...rest } = m;
    return { ...rest, interrupted: true };
  });
}

export const RENAME_MAX_LENGTH = 200;

/** A rename: trimmed, non-empty, at most 200 characters. */
export function checkTitle(title: string): string | null {
  const t = title.trim();
  if (!t) return 'A conversation name cannot be empty.';
  if (t.length > RENAME_MAX_LENGTH)
    return `A conversation name can be at most ${RENAME_MAX_LENGTH} characters.`;
  return null;
}
