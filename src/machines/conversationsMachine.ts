import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  setup,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type {
  Conversation,
  ConversationMessage,
  ConversationSummary,
} from '../shared/conversations/types';
import { checkTitle, sortSummaries } from '../shared/conversations/types';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
import { parseConversationFile } from '../shared/conversations/file';
import { defaultSettings, type GenerationSettings } from '../shared/generation-settings';

/** What the chat looks like right now (sent by the `watchChat` actor on every change). */
export interface ChatState {
  messages: ConversationMessage[];
  settings: GenerationSettings;
  modelId: string;
  /** A reply is being written: saves are throttled and the last message marked `streaming`. */
  streaming: boolean;
}

/** Loads a conversation into the chat (it interrupts a reply in progress first). */
export interface ChatLoad {
  type: 'chat.load';
  messages: ConversationMessage[];
  settings: GenerationSettings;
  /** A new conversation: the chat puts the loaded model's recommended settings on top. */
  fresh?: boolean;
}

/** The chat as seen from here: something that accepts `chat.load`. */
export interface ChatPort {
  send(event: ChatLoad): void;
}

/** The persistence actor as seen from here: it accepts store commands (replies come as events). */
export interface StorePort {
  send(command: StoreCommand): void;
}

export interface ConversationsInput {
  chat: ChatPort;
  store: StorePort;
  /** `?maxTokens=` cap (Max new tokens defaults and imports are clamped to it). */
  maxTokensCap: number;
}

export interface ConversationsContext {
  chat: ChatPort;
  store: StorePort;
  maxTokensCap: number;
  list: ConversationSummary[];
  /** The conversation on screen; null = a new chat not saved yet (no message sent). */
  current: Conversation | null;
  /** A change of `current` not written yet (throttled while streaming). */
  pending: Conversation | null;
  /** The conversation asked for by `conversation.select`, until the store returns it. */
  requestedId: string | null;
  /** Storage failure shown in the page; what is on screen is kept. */
  error: string | null;
  importError: string | null;
}

export type ConversationsEvent =
  | ({ type: 'chat.changed' } & ChatState)
  | { type: 'conversation.new' }
  | { type: 'conversation.select'; id: string }
  | { type: 'conversation.delete'; id: string }
  | { type: 'conversation.rename'; id: string; title: string }
  | { type: 'conversation.import'; text: string; size: number }
  | { type: 'conversation.dismissError' }
  | StoreResult;

/** Reports chat changes as `chat.changed`; provided by the app machine (it knows the chat). */
const watchChatPlaceholder = fromCallback<EventObject, { chat: ChatPort }>(() => undefined);

const newId = () =>
  typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : `c-${Date.now()}-${Math.random().toString(36).slice(2)}`;

function upsert(list: ConversationSummary[], summary: ConversationSummary) {
  return sortSummaries([...list.filter((s) => s.id !== summary.id), summary]);
}

function isSameContent(current: Conversation | null, event: ChatState) {
  return (
    current !== null && current.messages === event.messages && current.settings === event.settings
  );
}

/** The record as it should be stored: a reply still being written is marked `streaming`. */
function recordOf(context: ConversationsContext, event: ChatState): Conversation | null {
  const base = context.current;
  if (!base && !event.messages.some((m) => m.role === 'user')) return null;
  const messages = event.streaming
    ? event.messages.map((m, i) =>
        i === event.messages.length - 1 && m.role === 'assistant' ? { ...m, streaming: true } : m,
      )
    : event.messages;
  const now = Date.now();
  return {
    id: base?.id ?? newId(),
    customTitle: base?.customTitle,
    createdAt: base?.createdAt ?? now,
    updatedAt: now,
    modelId: event.modelId || base?.modelId || '',
    settings: event.settings,
    messages,
  };
}

export const conversationsMachine = setup({
  types: {
    context: {} as ConversationsContext,
    events: {} as ConversationsEvent,
    input: {} as ConversationsInput,
  },
  actors: { watchChat: watchChatPlaceholder },
  delays: {
    /** While a reply streams, save at most this often (a reload keeps what was streamed). */
    saveThrottle: 1000,
  },
  guards: {
    isUnchanged: ({ context, event }) =>
      event.type === 'chat.changed' &&
      (isSameContent(context.current, event) ||
        (context.current === null && !event.messages.some((m) => m.role === 'user'))),
    /** The chat was reset: the saved conversation stays as it was; the chat is a new one. */
    isCleared: ({ context, event }) =>
      event.type === 'chat.changed' &&
      context.current !== null &&
      !event.messages.some((m) => m.role === 'user'),
    isSettled: ({ event }) => event.type === 'chat.changed' && !event.streaming,
    isRequested: ({ context, event }) =>
      event.type === 'store.loaded' && event.conversation.id === context.requestedId,
    isValidTitle: ({ event }) =>
      event.type === 'conversation.rename' && checkTitle(event.title) === null,
    isCurrent: ({ context, event }) =>
      event.type === 'conversation.delete' && event.id === context.current?.id,
    isOtherConversation: ({ context, event }) =>
      event.type === 'conversation.select' && event.id !== context.current?.id,
  },
  actions: {
    storeList: assign({
      list: ({ event }) => {
        assertEvent(event, 'store.listed');
        return event.conversations;
      },
    }),
    track: assign(({ context, event }) => {
      assertEvent(event, 'chat.changed');
      const record = recordOf(context, event);
      // Keep the chat's own arrays as `current`, so the echo of a `chat.load` is recognised.
      return record
        ? {
            current: { ...record, messages: event.messages },
            pending: record,
          }
        : {};
    }),
    postSave: enqueueActions(({ context, enqueue }) => {
      if (!context.pending) return;
      const { store, pending } = context;
      enqueue(() => store.send({ type: 'store.put', conversation: pending }));
      enqueue.assign({ pending: null });
    }),
    noteSaved: assign({
      list: ({ context, event }) => {
        assertEvent(event, 'store.saved');
        return upsert(context.list, event.summary);
      },
    }),
    storeFailure: assign({
      error: ({ event }) => {
        assertEvent(event, 'store.failed');
        return event.error.message;
      },
      requestedId: ({ context, event }) =>
        event.type === 'store.failed' && event.op === 'store.get' ? null : context.requestedId,
    }),
    detach: assign({ current: null }),
    dismissError: assign({ error: null, importError: null }),
    requestConversation: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'conversation.select');
      const { store } = context;
      const { id } = event;
      enqueue(() => store.send({ type: 'store.get', id }));
      enqueue.assign({ requestedId: event.id });
    }),
    showLoaded: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'store.loaded');
      const { conversation } = event;
      const { chat } = context;
      enqueue(() =>
        chat.send({
          type: 'chat.load',
          messages: conversation.messages,
          settings: conversation.settings,
        }),
      );
      enqueue.assign({ current: conversation, requestedId: null });
    }),
    startNew: enqueueActions(({ context, enqueue }) => {
      const { chat, maxTokensCap } = context;
      enqueue(() =>
        chat.send({
          type: 'chat.load',
          messages: [],
          settings: defaultSettings(maxTokensCap),
          fresh: true,
        }),
      );
      enqueue.assign({ current: null, requestedId: null });
    }),
    forgetConversation: assign(({ context, event }) => {
      assertEvent(event, 'conversation.delete');
      return {
        pending: context.pending?.id === event.id ? null : context.pending,
        list: context.list.filter((s) => s.id !== event.id),
      };
    }),
    postDelete: ({ context, event }) => {
      assertEvent(event, 'conversation.delete');
      context.store.send({ type: 'store.delete', id: event.id });
    },
    renameCurrent: assign(({ context, event }) => {
      assertEvent(event, 'conversation.rename');
      if (context.current?.id !== event.id) return {};
      const title = event.title.trim();
      return {
        current: { ...context.current, customTitle: title },
        pending: context.pending ? { ...context.pending, customTitle: title } : null,
      };
    }),
    postRename: ({ context, event }) => {
      assertEvent(event, 'conversation.rename');
      context.store.send({ type: 'store.rename', id: event.id, title: event.title });
    },
    importConversation: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'conversation.import');
      const result = parseConversationFile(event.text, event.size, context.maxTokensCap);
      if (!result.ok) {
        enqueue.assign({ importError: result.error.message });
        return;
      }
      const now = Date.now();
      const conversation: Conversation = {
        ...result.conversation,
        id: newId(),
        createdAt: now,
        updatedAt: now,
      };
      const { chat } = context;
      enqueue(() =>
        chat.send({
          type: 'chat.load',
          messages: conversation.messages,
          settings: conversation.settings,
        }),
      );
      enqueue.assign({
        importError: null,
        current: conversation,
        pending: conversation,
        requestedId: null,
      });
    }),
  },
}).createMachine({
  id: 'conversations',
  context: ({ input }) => ({
    chat: input.chat,
    store: input.store,
    maxTokensCap: input.maxTokensCap,
    list: [],
    current: null,
    pending: null,
    requestedId: null,
    error: null,
    importError: null,
  }),
  invoke: { id: 'watchChat', src: 'watchChat', input: ({ context }) => ({ chat: context.chat }) },
  entry: ({ context }) => context.store.send({ type: 'store.list' }),
  type: 'parallel',
  on: {
    'conversation.new': { actions: ['postSave', 'startNew'] },
    'conversation.select': {
      guard: 'isOtherConversation',
      actions: ['postSave', 'requestConversation'],
    },
    'store.loaded': { guard: 'isRequested', actions: 'showLoaded' },
    'conversation.delete': [
      {
        guard: 'isCurrent',
        actions: ['forgetConversation', 'postDelete', 'startNew'],
      },
      { actions: ['forgetConversation', 'postDelete'] },
    ],
    'conversation.rename': {
      guard: 'isValidTitle',
      actions: ['renameCurrent', 'postSave', 'postRename'],
    },
    'conversation.import': { actions: ['postSave', 'importConversation', 'postSave'] },
    'store.saved': { actions: 'noteSaved' },
    'store.failed': { actions: 'storeFailure' },
    'conversation.dismissError': { actions: 'dismissError' },
  },
  states: {
    /** The saved list: read once at start, then kept in step with each save and delete. */
    list: {
      initial: 'loading',
      states: {
        loading: {
          on: {
            'store.listed': { target: 'loaded', actions: 'storeList' },
            'store.failed': { target: 'unavailable', actions: 'storeFailure' },
          },
        },
        loaded: {},
        /** Storage could not be opened (private mode, blocked upgrade): the chat still works. */
        unavailable: {},
      },
    },
    /** Writes: at once when the chat is settled, at most once a `saveThrottle` while streaming. */
    saving: {
      initial: 'clean',
      states: {
        clean: {
          on: {
            'chat.changed': [
              { guard: 'isUnchanged' },
              { guard: 'isCleared', actions: 'detach' },
              { guard: 'isSettled', actions: ['track', 'postSave'] },
              { target: 'dirty', actions: 'track' },
            ],
          },
        },
        dirty: {
          after: { saveThrottle: { target: 'clean', actions: 'postSave' } },
          on: {
            'chat.changed': [
              { guard: 'isUnchanged' },
              { guard: 'isCleared', target: 'clean', actions: ['postSave', 'detach'] },
              { guard: 'isSettled', target: 'clean', actions: ['track', 'postSave'] },
              { actions: 'track' },
            ],
          },
        },
      },
    },
  },
});

export type ConversationsSnapshot = SnapshotFrom<typeof conversationsMachine>;
/** Saved conversations, newest first. */
export const selectConversationList = (s: ConversationsSnapshot) => s.context.list;
/** The id of the conversation on screen (null for a new, unsaved chat). */
export const selectCurrentId = (s: ConversationsSnapshot) => s.context.current?.id ?? null;
export const selectCurrentConversation = (s: ConversationsSnapshot) => s.context.current;
export const selectStorageError = (s: ConversationsSnapshot) => s.context.error;
export const selectImportError = (s: ConversationsSnapshot) => s.context.importError;
