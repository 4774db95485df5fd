import { assign, enqueueActions, sendTo, setup, type SnapshotFrom } from 'xstate';
import type { ChatMessage, WhenTooLong } from '../shared/worker-protocol';
import type { ContextWindow } from '../shared/context-window';
import { toGenerateOptions } from '../shared/generate-options';
import { REPLY_SILENCE_MS } from '../shared/liveness';
import type { GenerationStats } from '../shared/generation-stats';
import type { ConversationMessage } from '../shared/conversations/types';
import {
  DEFAULT_MAX_NEW_TOKENS,
  defaultSettings,
  sanitizeSettings,
  settingsFor,
  type GenerationSettings,
} from '../shared/generation-settings';
import type { ChatWorkerEvent, WorkerPort } from './worker-events';
import { capOf } from './chat-cap';
import { branchAt, showVersion } from './message-versions';

/**
 * A message as shown (and saved): assistant messages may carry reasoning shown apart from the
 * answer, how the reply ended when not by the model's own end (Stop, or the token limit), and the
 * reply's figures.
 */
export type DisplayMessage = ConversationMessage;

/** `messages` with the last one replaced by `update(last)` if it is the reply being written. */
function withLastReply(
  messages: DisplayMessage[],
  update: (last: DisplayMessage) => DisplayMessage,
): DisplayMessage[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return messages;
  return [...messages.slice(0, -1), update(last)];
}

export interface ChatContext {
  worker: WorkerPort;
  /** The `?maxTokens=` cap: Max new tokens never exceeds it. */
  maxNewTokens: number;
  /** The conversation's generation settings (they reach the worker with each `generate`). */
  settings: GenerationSettings;
  /** The loaded model's id ('' before one is ready). */
  modelId: string;
  replyStallMs: number;
  messages: DisplayMessage[];
  /** The text box's content; cleared on send (PRODUCT.md §4). */
  draft: string;
  /** Tokens per second during generation; null when cleared. */
  tps: number | null;
  numTokens: number | null;
  /** Seconds of the last completed generation; null while generating or cleared. */
  seconds: number | null;
  /** Prefill / decode figures of the last completed generation (generation-stats.ts). */
  stats: GenerationStats | null;
  /** A generation error (PRODUCT.md §4: console only; shown here too). */
  error: string | null;
  /** The loaded model's recommended settings (its entry's, else its generation config's). */
  recommended: Partial<GenerationSettings> | null;
  /** The user changed this conversation's settings: a model's recommendations no longer apply. */
  settingsChosen: boolean;
  /** The cap came from `?maxTokens=` (then a model's recommendation does not lift it). */
  capExplicit: boolean;
  /** The loaded model's usable context window (from `ready`), null before one is ready. */
  contextWindow: ContextWindow | null;
  /** The latest token count: the conversation with the draft as its next message. */
  usage: number | null;
  /** The number of the latest `count` request (an older answer is dropped). */
  countSeq: number;
  /** How many of the first messages the model no longer saw in the latest reply's prompt. */
  omitted: number;
  /** A turn past the window: leave out the oldest turns (default) or refuse. */
  whenTooLong: WhenTooLong;
  /** The text of the send being answered: it goes back to the box if refused as too long. */
  sentText: string | null;
}

export interface ChatInput {
  worker: WorkerPort;
  /** Longest reply in tokens (default 1024). */
  maxNewTokens?: number | undefined;
  /** Silence allowed while a reply is due (default REPLY_STALL_MS). */
  replyStallMs?: number | undefined;
}

export type ChatEvent =
  | { type: 'chat.input'; text: string }
  | { type: 'chat.send'; text?: string }
  | { type: 'chat.stop' }
  | { type: 'chat.reset' }
  /** Show another conversation (from the conversations machine). */
  | {
      type: 'chat.load';
      messages: DisplayMessage[];
      settings: GenerationSettings;
      /** A new conversation: the loaded model's recommended settings go on top. */
      fresh?: boolean;
      /** The conversation's refusal setting (absent: leave out the oldest turns). */
      whenTooLong?: WhenTooLong | undefined;
      /** What its latest reply's prompt left out (absent: nothing). */
      omitted?: number | undefined;
    }
  | { type: 'chat.settings'; patch: Partial<GenerationSettings> }
  /** A new answer to the last message; the last reply is kept as another version. */
  | { type: 'chat.regenerate' }
  /** Replace user message `index` with `text` and reply from there (the old branch is kept). */
  | { type: 'chat.edit'; index: number; text: string }
  /** The last reply stopped at Max new tokens: the model goes on into it. */
  | { type: 'chat.continue' }
  /** Show version `version` of message `index` (the pager). */
  | { type: 'chat.version'; index: number; version: number }
  /** What a turn past the model's window does. */
  | { type: 'chat.whenTooLong'; value: WhenTooLong }
  /** Count the tokens now (raised by `scheduleCount` after the typing pauses). */
  | { type: 'chat.count' }
  | ChatWorkerEvent;

/**
 * No worker message for this long while a reply is due = the worker is gone (closed, crashed).
 * A live worker beats every 2 s while it generates (llm.worker.ts `HEARTBEAT_MS`), however slow
 * its GPU, so this can be short without ever calling a slow reply dead.
 */
export const REPLY_STALL_MS = REPLY_SILENCE_MS;

/** What goes to the worker: roles normalised (anything but assistant is user), no reasoning. */
export function toWorkerMessages(messages: DisplayMessage[]): ChatMessage[] {
  return messages.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: m.content,
  }));
}

/** A new, untouched conversation takes the loaded model's recommended settings. */
function freshSettings(context: ChatContext): GenerationSettings {
  return settingsFor(context.recommended, capOf(context));
}

/** The worker's options from the conversation's settings, Max new tokens capped (shared with Compare). */
export { toGenerateOptions };

type ChatEventOf<T extends ChatEvent['type']> = Extract<ChatEvent, { type: T }>;
type ReadyMessage = ChatEventOf<'worker.ready'>['message'];

function textOf(context: ChatContext, event: { text?: string }): string {
  return (event.text ?? context.draft).trim();
}

/** What `postGenerate` sends besides the conversation. */
interface GenerateParams {
  /** Leave out the last message (the empty reply a Regenerate writes into). */
  dropLast?: boolean;
  /** Continue the last reply (GenerateOptions.continue). */
  continue?: boolean;
}

const noStats = { tps: null, numTokens: null, seconds: null, stats: null, error: null };

export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
    input: {} as ChatInput,
  },
  guards: {
    hasText: ({ context }, send: ChatEventOf<'chat.send'>) => textOf(context, send).length > 0,
    hasReply: ({ context }) => context.messages.at(-1)?.role === 'assistant',
    isEditable: ({ context }, edit: ChatEventOf<'chat.edit'>) =>
      context.messages[edit.index]?.role === 'user' && edit.text.trim().length > 0,
    /** Only a reply cut off by Max new tokens is continued (one that ended normally is done). */
    endedAtLimit: ({ context }) => context.messages.at(-1)?.ended?.by === 'limit',
  },
  actions: {
    setDraft: assign({ draft: (_, text: string) => text }),
    appendUserMessage: assign({
      messages: ({ context }, send: ChatEventOf<'chat.send'>) => [
        ...context.messages,
        { role: 'user' as const, content: textOf(context, send) },
      ],
      sentText: ({ context }, send: ChatEventOf<'chat.send'>) => textOf(context, send),
    }),
    /** A count after the typing pauses for `countDebounce` (each call restarts the wait). */
    scheduleCount: enqueueActions(({ enqueue }) => {
      enqueue.cancel('count');
      enqueue.raise({ type: 'chat.count' }, { id: 'count', delay: 'countDebounce' });
    }),
    postCount: enqueueActions(({ context, enqueue }) => {
      const seq = context.countSeq + 1;
      enqueue.assign({ countSeq: seq });
      enqueue.sendTo(context.worker, {
        type: 'count',
        data: toWorkerMessages(context.messages),
        draft: context.draft.trim(),
        options: { systemPrompt: context.settings.systemPrompt },
        seq,
      });
    }),
    storeUsage: assign({
      usage: ({ context }, message: ChatEventOf<'worker.count'>['message']) =>
        message.seq !== context.countSeq
          ? context.usage
          : 'tokens' in message
            ? message.tokens
            : null,
    }),
    storeOmitted: assign({
      omitted: (_, message: ChatEventOf<'worker.start'>['message']) => message.omitted ?? 0,
    }),
    /** A send refused as too long for the window: its text goes back to the box. */
    returnSentText: assign(({ context }, message: ChatEventOf<'worker.error'>['message']) =>
      message.tooLong && context.sentText !== null && context.messages.at(-1)?.role === 'user'
        ? { messages: context.messages.slice(0, -1), draft: context.sentText, sentText: null }
        : {},
    ),
    clearDraftAndStats: assign({ draft: '', ...noStats }),
    clearStats: assign(noStats),
    regenerateReply: assign({
      messages: ({ context }) =>
        branchAt(context.messages, context.messages.length - 1, { role: 'assistant', content: '' }),
    }),
    editMessage: assign({
      messages: ({ context }, edit: ChatEventOf<'chat.edit'>) =>
        branchAt(context.messages, edit.index, { role: 'user', content: edit.text.trim() }),
    }),
    /** The reply is written on: its limit mark goes (its figures stay and add up). */
    reopenReply: assign({
      messages: ({ context }) =>
        withLastReply(context.messages, ({ ended: _ended, ...last }) => last),
    }),
    showVersion: assign({
      messages: ({ context }, pick: ChatEventOf<'chat.version'>) =>
        showVersion(context.messages, pick.index, pick.version),
    }),
    postGenerate: sendTo(
      ({ context }) => context.worker,
      ({ context }, params: GenerateParams | undefined) => ({
        type: 'generate' as const,
        data: toWorkerMessages(params?.dropLast ? context.messages.slice(0, -1) : context.messages),
        options: {
          ...toGenerateOptions(context.settings, capOf(context)),
          ...(params?.continue ? { continue: true } : {}),
          ...(context.whenTooLong === 'refuse' ? { whenTooLong: context.whenTooLong } : {}),
        },
      }),
    ),
    postInterrupt: sendTo(({ context }) => context.worker, { type: 'interrupt' }),
    postReset: sendTo(({ context }) => context.worker, { type: 'reset' }),
    clearConversation: assign({
      messages: [],
      omitted: 0,
      tps: null,
      numTokens: null,
      seconds: null,
      stats: null,
      error: null,
    }),
    /** Stop: the reply is final as shown now; the worker's tail (until `complete`) is dropped. */
    markStopped: assign({
      messages: ({ context }) =>
        withLastReply(context.messages, (last) => ({ ...last, ended: { by: 'stop' } })),
    }),
    /** Ask the worker actor to drop a silent worker; it answers with a `fault`. */
    abandonWorker: sendTo(
      ({ context }) => context.worker,
      ({ context }) => ({
        type: 'abandon' as const,
        data: `no reply for ${context.replyStallMs / 1000} seconds`,
      }),
    ),
    /** The reply's message: new after a send; a Regenerate or Continue writes into the last one. */
    openReply: assign({
      messages: ({ context }) =>
        context.messages.at(-1)?.role === 'assistant'
          ? context.messages
          : [...context.messages, { role: 'assistant' as const, content: '' }],
    }),
    appendOutput: assign(({ context }, message: ChatEventOf<'worker.update'>['message']) => {
      const { output, tps, numTokens, channel } = message;
      const messages = withLastReply(context.messages, (last) =>
        channel === 'thinking'
          ? { ...last, thinking: (last.thinking ?? '') + output }
          : { ...last, content: last.content + output },
      );
      return { messages, tps: tps ?? context.tps, numTokens };
    }),
    storeCompletion: assign(({ context }, message: ChatEventOf<'worker.complete'>['message']) => {
      const { numTokens, seconds, stats, finish } = message;
      const tps = stats?.decodeTps ?? context.tps;
      // The reply keeps its figures (and how it ended) when saved and reloaded.
      const messages = withLastReply(context.messages, (last) => ({
        ...last,
        // A continued reply counts its earlier run too.
        figures: {
          numTokens: numTokens + (last.figures?.numTokens ?? 0),
          seconds: seconds + (last.figures?.seconds ?? 0),
          tps: tps ?? undefined,
        },
        ...(finish === 'length'
          ? {
              ended: {
                by: 'limit',
                limit: Math.min(context.settings.maxNewTokens, capOf(context)),
              },
            }
          : {}),
      }));
      return { messages, numTokens, seconds, stats: stats ?? null, tps };
    }),
    loadConversation: assign(({ context }, load: ChatEventOf<'chat.load'>) => {
      return {
        messages: load.messages,
        // A new conversation starts with the loaded model's recommended settings.
        settings: load.fresh ? freshSettings(context) : load.settings,
        settingsChosen: !load.fresh,
        draft: '',
        // Saved with the conversation: the marker and the refusal setting come back with it.
        omitted: load.omitted ?? 0,
        whenTooLong: load.whenTooLong ?? 'drop-oldest',
        tps: null,
        numTokens: null,
        seconds: null,
        stats: null,
        error: null,
      };
    }),
    changeSettings: assign({
      // Values are checked in the form; re-checked here so nothing out of range reaches the model.
      settings: ({ context }, patch: Partial<GenerationSettings>) =>
        sanitizeSettings({ ...context.settings, ...patch }, capOf(context)),
      settingsChosen: true,
    }),
    // `message` may be absent in hand-written events (the inspector's tests send bare ones).
    storeModelId: assign(({ context }, message: ReadyMessage | undefined) => {
      const recommended = message?.data?.recommended ?? null;
      const next = { ...context, recommended };
      return {
        modelId: message?.data?.id ?? context.modelId,
        recommended,
        contextWindow: message?.data?.contextWindow ?? null,
        usage: null,
        // An empty conversation whose settings the user has not touched follows the model.
        ...(context.messages.length === 0 && !context.settingsChosen
          ? { settings: freshSettings(next) }
          : {}),
      };
    }),
    storeError: assign({ error: (_, error: string) => error }),
    // Spec: worker error events are logged to the console.
    logError: (_, error: string) => console.error(error),
  },
  delays: {
    replyStall: ({ context }) => context.replyStallMs,
    countDebounce: 250,
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({
    worker: input.worker,
    maxNewTokens: input.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS,
    settings: defaultSettings(input.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS),
    modelId: '',
    replyStallMs: input.replyStallMs ?? REPLY_STALL_MS,
    messages: [],
    draft: '',
    tps: null,
    numTokens: null,
    seconds: null,
    stats: null,
    error: null,
    recommended: null,
    settingsChosen: false,
    capExplicit: input.maxNewTokens !== undefined,
    contextWindow: null,
    usage: null,
    countSeq: 0,
    omitted: 0,
    whenTooLong: 'drop-oldest',
    sentText: null,
  }),
  initial: 'unavailable',
  on: {
    'chat.input': {
      actions: [{ type: 'setDraft', params: ({ event }) => event.text }, 'scheduleCount'],
    },
    'chat.settings': {
      actions: [{ type: 'changeSettings', params: ({ event }) => event.patch }, 'scheduleCount'],
    },
    'chat.whenTooLong': { actions: assign({ whenTooLong: ({ event }) => event.value }) },
    'worker.count': { actions: { type: 'storeUsage', params: ({ event }) => event.message } },
    // Before a model is ready the worker answers with an error, and the usage line stays empty.
    'chat.count': { actions: 'postCount' },
    // The worker or its GPU is gone: wait for the model to be loaded again (the draft is kept).
    'worker.fault': '.unavailable',
  },
  states: {
    /** The text box is disabled until the model is ready (PRODUCT.md §2); sends are ignored. */
    unavailable: {
      on: {
        'worker.ready': {
          target: 'idle',
          actions: [
            { type: 'storeModelId', params: ({ event }) => event.message },
            'scheduleCount',
          ],
        },
        'chat.load': { actions: { type: 'loadConversation', params: ({ event }) => event } },
      },
    },
    idle: {
      on: {
        // Another model is loading (a switch): the chat waits for it.
        'worker.loading': 'unavailable',
        'worker.ready': {
          actions: [
            { type: 'storeModelId', params: ({ event }) => event.message },
            'scheduleCount',
          ],
        },
        'chat.load': {
          actions: [{ type: 'loadConversation', params: ({ event }) => event }, 'scheduleCount'],
        },
        'chat.send': {
          guard: { type: 'hasText', params: ({ event }) => event },
          target: 'replying',
          actions: [
            { type: 'appendUserMessage', params: ({ event }) => event },
            'clearDraftAndStats',
            'postGenerate',
          ],
        },
        'chat.reset': { actions: ['postReset', 'clearConversation', 'scheduleCount'] },
        // Regenerate, Edit and Continue are handled here only: while a reply streams they are
        // refused (ignored) until it ends or is stopped.
        'chat.regenerate': {
          guard: 'hasReply',
          target: 'replying',
          actions: [
            'regenerateReply',
            'clearStats',
            assign({ sentText: null }),
            { type: 'postGenerate', params: { dropLast: true } },
          ],
        },
        'chat.edit': {
          guard: { type: 'isEditable', params: ({ event }) => event },
          target: 'replying',
          actions: [
            { type: 'editMessage', params: ({ event }) => event },
            'clearStats',
            assign({ sentText: null }),
            'postGenerate',
          ],
        },
        'chat.continue': {
          guard: 'endedAtLimit',
          target: 'replying',
          actions: [
            'reopenReply',
            'clearStats',
            assign({ sentText: null }),
            { type: 'postGenerate', params: { continue: true } },
          ],
        },
        'chat.version': {
          actions: [{ type: 'showVersion', params: ({ event }) => event }, 'scheduleCount'],
        },
      },
    },
    /**
     * The worker runs a reply of ours. How it ends is handled here once; each child re-enters
     * itself on every worker message (the heartbeat too), restarting its stall timer.
     */
    replying: {
      initial: 'generating',
      on: {
        'worker.complete': {
          target: 'idle',
          actions: [
            { type: 'storeCompletion', params: ({ event }) => event.message },
            'scheduleCount',
          ],
        },
        'worker.error': {
          target: 'idle',
          actions: [
            { type: 'logError', params: ({ event }) => event.message.data },
            { type: 'storeError', params: ({ event }) => event.message.data },
            { type: 'returnSentText', params: ({ event }) => event.message },
            'scheduleCount',
          ],
        },
      },
      states: {
        generating: {
          after: { replyStall: { target: '#chat.unavailable', actions: 'abandonWorker' } },
          on: {
            'worker.alive': { target: 'generating', reenter: true },
            'worker.start': {
              target: 'generating',
              reenter: true,
              actions: [
                'openReply',
                { type: 'storeOmitted', params: ({ event }) => event.message },
              ],
            },
            'worker.update': {
              target: 'generating',
              reenter: true,
              actions: { type: 'appendOutput', params: ({ event }) => event.message },
            },
            'chat.stop': { target: 'stopping', actions: ['postInterrupt', 'markStopped'] },
            // Another conversation chosen mid-reply: stop this one and ignore its tail.
            'chat.load': {
              target: 'resetting',
              actions: [
                'postInterrupt',
                { type: 'loadConversation', params: ({ event }) => event },
              ],
            },
            'chat.reset': {
              target: 'resetting',
              actions: ['postInterrupt', 'postReset', 'clearConversation'],
            },
          },
        },
        /** Stop: the reply shown is final; wait for the worker to finish the interrupted run. */
        stopping: {
          after: { replyStall: { target: '#chat.unavailable', actions: 'abandonWorker' } },
          on: {
            'worker.alive': { target: 'stopping', reenter: true },
            'worker.update': { target: 'stopping', reenter: true },
            'chat.load': {
              target: 'resetting',
              actions: { type: 'loadConversation', params: ({ event }) => event },
            },
            'chat.reset': { target: 'resetting', actions: ['postReset', 'clearConversation'] },
          },
        },
        /** Reset during a reply: its tail is ignored, and so is how it ends. */
        resetting: {
          after: { replyStall: { target: '#chat.unavailable', actions: 'abandonWorker' } },
          on: {
            'chat.load': { actions: { type: 'loadConversation', params: ({ event }) => event } },
            'worker.alive': { target: 'resetting', reenter: true },
            'worker.update': { target: 'resetting', reenter: true },
            'worker.complete': '#chat.idle',
            'worker.error': '#chat.idle',
          },
        },
      },
    },
  },
});

export type ChatSnapshot = SnapshotFrom<typeof chatMachine>;
