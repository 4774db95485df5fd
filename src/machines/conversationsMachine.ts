import {
  assign,
  enqueueActions,
  fromCallback,
  sendTo,
  setup,
  type ActorRef,
  type EventObject,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type {
  Conversation,
  ConversationMessage,
  ConversationSummary,
} from '../shared/conversations/types';
import { checkTitle, sortSummaries } from '../shared/conversations/types';
import type { StoreCommand, StoreResult } from '../shared/conversations/store-protocol';
// Type only: the file check (file.ts) runs in the Conversations panel's chunk, outside the first load.
import type { ImportResult } from '../shared/conversations/file';
import type { WhenTooLong } from '../shared/worker-protocol';
import { defaultSettings, type GenerationSettings } from '../shared/generation-settings';

/** What the chat looks like right now (sent by the `watchChat` actor on every change). */
export interface ChatState {
  messages: ConversationMessage[];
  settings: GenerationSettings;
  modelId: string;
  /** A reply is being written: saves are throttled and the last message marked `streaming`. */
  streaming: boolean;
  /** The chat's refusal setting when it refuses (Conversation.whenTooLong). */
  whenTooLong?: WhenTooLong | undefined;
  /** What the latest reply's prompt left out, when it left out any (Conversation.omitted). */
  omitted?: number | undefined;
}

/** Loads a conversation into the chat (it interrupts a reply in progress first). */
export interface ChatLoad {
  type: 'chat.load';
  messages: ConversationMessage[];
  settings: GenerationSettings;
  /** A new conversation: the chat puts the loaded model's recommended settings on top. */
  fresh?: boolean;
  /** The conversation's refusal setting and cut, as saved (absent: the defaults). */
  whenTooLong?: WhenTooLong | undefined;
  omitted?: number | undefined;
}

/** The chat as seen from here: an actor that accepts `chat.load`. */
export type ChatPort = ActorRef<Snapshot<unknown>, ChatLoad>;

/** The persistence actor as seen from here: it accepts store commands (replies come as events). */
export type StorePort = ActorRef<Snapshot<unknown>, StoreCommand>;

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
  /** A file checked by `parseConversationFile` (with this machine's `maxTokensCap`). */
  | { type: 'conversation.import'; result: ImportResult }
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
    current !== null &&
    current.messages === event.messages &&
    current.settings === event.settings &&
    current.whenTooLong === event.whenTooLong &&
    current.omitted === event.omitted
  );
}

/** Shows a saved or imported conversation in the chat. */
const loadOf = (conversation: Conversation): ChatLoad => ({
  type: 'chat.load',
  messages: conversation.messages,
  settings: conversation.settings,
  whenTooLong: conversation.whenTooLong,
  omitted: conversation.omitted,
});

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
    whenTooLong: event.whenTooLong,
    omitted: event.omitted,
  };
}

type StoreFailure = Extract<StoreResult, { type: 'store.failed' }>;
/** The chat's state a `chat.changed` event carries. */
const chatOf = ({ event }: { event: { type: 'chat.changed' } & ChatState }): ChatState => event;

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
    isUnchanged: ({ context }, chat: ChatState) =>
      isSameContent(context.current, chat) ||
      (context.current === null && !chat.messages.some((m) => m.role === 'user')),
    /** The chat was reset: the saved conversation stays as it was; the chat is a new one. */
    isCleared: ({ context }, chat: ChatState) =>
      context.current !== null && !chat.messages.some((m) => m.role === 'user'),
    isSettled: (_, chat: ChatState) => !chat.streaming,
    isRequested: ({ context }, id: string) => id === context.requestedId,
    isValidTitle: (_, title: string) => checkTitle(title) === null,
    isCurrent: ({ context }, id: string) => id === context.current?.id,
    isOtherConversation: ({ context }, id: string) => id !== context.current?.id,
  },
  actions: {
    storeList: assign({ list: (_, list: ConversationSummary[]) => list }),
    track: assign(({ context }, chat: ChatState) => {
      const record = recordOf(context, chat);
      // Keep the chat's own arrays as `current`, so the echo of a `chat.load` is recognised.
      return record
        ? {
            current: { ...record, messages: chat.messages },
            pending: record,
          }
        : {};
    }),
    postSave: enqueueActions(({ context, enqueue }) => {
      if (!context.pending) return;
      enqueue.sendTo(context.store, { type: 'store.put', conversation: context.pending });
      enqueue.assign({ pending: null });
    }),
    noteSaved: assign({
      list: ({ context }, summary: ConversationSummary) => upsert(context.list, summary),
    }),
    storeFailure: assign({
      error: (_, failure: StoreFailure) => failure.error.message,
      requestedId: ({ context }, failure: StoreFailure) =>
        failure.op === 'store.get' ? null : context.requestedId,
    }),
    detach: assign({ current: null }),
    dismissError: assign({ error: null, importError: null }),
    requestConversation: enqueueActions(({ context, enqueue }, id: string) => {
      enqueue.sendTo(context.store, { type: 'store.get', id });
      enqueue.assign({ requestedId: id });
    }),
    showLoaded: enqueueActions(({ context, enqueue }, conversation: Conversation) => {
      enqueue.sendTo(context.chat, loadOf(conversation));
      enqueue.assign({ current: conversation, requestedId: null });
    }),
    startNew: enqueueActions(({ context, enqueue }) => {
      enqueue.sendTo(context.chat, {
        type: 'chat.load',
        messages: [],
        settings: defaultSettings(context.maxTokensCap),
        fresh: true,
      });
      enqueue.assign({ current: null, requestedId: null });
    }),
    forgetConversation: assign(({ context }, id: string) => ({
      pending: context.pending?.id === id ? null : context.pending,
      list: context.list.filter((s) => s.id !== id),
    })),
    postDelete: sendTo(
      ({ context }) => context.store,
      (_, id: string) => ({ type: 'store.delete' as const, id }),
    ),
    renameCurrent: assign(({ context }, rename: { id: string; title: string }) => {
      if (context.current?.id !== rename.id) return {};
      const title = rename.title.trim();
      return {
        current: { ...context.current, customTitle: title },
        pending: context.pending ? { ...context.pending, customTitle: title } : null,
      };
    }),
    postRename: sendTo(
      ({ context }) => context.store,
      (_, { id, title }: { id: string; title: string }) => ({
        type: 'store.rename' as const,
        id,
        title,
      }),
    ),
    importConversation: enqueueActions(({ context, enqueue }, result: ImportResult) => {
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
      enqueue.sendTo(context.chat, loadOf(conversation));
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
  entry: sendTo(({ context }) => context.store, { type: 'store.list' }),
  type: 'parallel',
  on: {
    'conversation.new': { actions: ['postSave', 'startNew'] },
    'conversation.select': {
      guard: { type: 'isOtherConversation', params: ({ event }) => event.id },
      actions: ['postSave', { type: 'requestConversation', params: ({ event }) => event.id }],
    },
    'store.loaded': {
      guard: { type: 'isRequested', params: ({ event }) => event.conversation.id },
      actions: { type: 'showLoaded', params: ({ event }) => event.conversation },
    },
    'conversation.delete': [
      {
        guard: { type: 'isCurrent', params: ({ event }) => event.id },
        actions: [
          { type: 'forgetConversation', params: ({ event }) => event.id },
          { type: 'postDelete', params: ({ event }) => event.id },
          'startNew',
        ],
      },
      {
        actions: [
          { type: 'forgetConversation', params: ({ event }) => event.id },
          { type: 'postDelete', params: ({ event }) => event.id },
        ],
      },
    ],
    'conversation.rename': {
      guard: { type: 'isValidTitle', params: ({ event }) => event.title },
      actions: [
        { type: 'renameCurrent', params: ({ event }) => event },
        'postSave',
        { type: 'postRename', params: ({ event }) => event },
      ],
    },
    'conversation.import': {
      actions: [
        'postSave',
        { type: 'importConversation', params: ({ event }) => event.result },
        'postSave',
      ],
    },
    'store.saved': { actions: { type: 'noteSaved', params: ({ event }) => event.summary } },
    'store.failed': { actions: { type: 'storeFailure', params: ({ event }) => event } },
    'conversation.dismissError': { actions: 'dismissError' },
  },
  states: {
    /** The saved list: read once at start, then kept in step with each save and delete. */
    list: {
      initial: 'loading',
      states: {
        loading: {
          on: {
            'store.listed': {
              target: 'loaded',
              actions: { type: 'storeList', params: ({ event }) => event.conversations },
            },
            'store.failed': {
              target: 'unavailable',
              actions: { type: 'storeFailure', params: ({ event }) => event },
            },
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
              { guard: { type: 'isUnchanged', params: chatOf } },
              { guard: { type: 'isCleared', params: chatOf }, actions: 'detach' },
              {
                guard: { type: 'isSettled', params: chatOf },
                actions: [{ type: 'track', params: chatOf }, 'postSave'],
              },
              { target: 'dirty', actions: { type: 'track', params: chatOf } },
            ],
          },
        },
        dirty: {
          after: { saveThrottle: { target: 'clean', actions: 'postSave' } },
          on: {
            'chat.changed': [
              { guard: { type: 'isUnchanged', params: chatOf } },
              {
                guard: { type: 'isCleared', params: chatOf },
                target: 'clean',
                actions: ['postSave', 'detach'],
              },
              {
                guard: { type: 'isSettled', params: chatOf },
                target: 'clean',
                actions: [{ type: 'track', params: chatOf }, 'postSave'],
              },
              { actions: { type: 'track', params: chatOf } },
            ],
          },
        },
      },
    },
  },
});

export type ConversationsSnapshot = SnapshotFrom<typeof conversationsMachine>;
