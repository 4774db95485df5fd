import { assertEvent, assign, setup, type SnapshotFrom } from 'xstate';
import type { ChatMessage } from '../shared/worker-protocol';
import type { WorkerEventOf, WorkerPort } from './worker-events';

/** A message as shown: assistant messages may carry reasoning shown apart from the answer. */
export interface DisplayMessage extends ChatMessage {
  thinking?: string;
}

export interface ChatContext {
  worker: WorkerPort;
  maxNewTokens: number;
  messages: DisplayMessage[];
  /** The text box's content; cleared on send (spec). */
  draft: string;
  /** Tokens per second during generation; null when cleared. */
  tps: number | null;
  numTokens: number | null;
  /** Seconds of the last completed generation; null while generating or cleared. */
  seconds: number | null;
  /** A generation error (spec: console only; shown here too). */
  error: string | null;
}

export interface ChatInput {
  worker: WorkerPort;
  /** Longest reply in tokens (default 1024). */
  maxNewTokens?: number | undefined;
}

export type ChatEvent =
  | { type: 'chat.input'; text: string }
  | { type: 'chat.send'; text?: string }
  | { type: 'chat.stop' }
  | { type: 'chat.reset' }
  | WorkerEventOf<'ready'>
  | WorkerEventOf<'start'>
  | WorkerEventOf<'update'>
  | WorkerEventOf<'complete'>
  | WorkerEventOf<'error'>;

/** What goes to the worker: roles normalised (anything but assistant is user), no reasoning. */
export function toWorkerMessages(messages: DisplayMessage[]): ChatMessage[] {
  return messages.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: m.content,
  }));
}

function textOf(context: ChatContext, event: { text?: string }): string {
  return (event.text ?? context.draft).trim();
}

export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
    input: {} as ChatInput,
  },
  guards: {
    hasText: ({ context, event }) => {
      assertEvent(event, 'chat.send');
      return textOf(context, event).length > 0;
    },
    isGenerateError: ({ event }) =>
      event.type === 'worker.error' && event.message.phase === 'generate',
  },
  actions: {
    setDraft: assign({
      draft: ({ event }) => {
        assertEvent(event, 'chat.input');
        return event.text;
      },
    }),
    appendUserMessage: assign({
      messages: ({ context, event }) => {
        assertEvent(event, 'chat.send');
        return [...context.messages, { role: 'user' as const, content: textOf(context, event) }];
      },
    }),
    clearDraftAndStats: assign({
      draft: '',
      tps: null,
      numTokens: null,
      seconds: null,
      error: null,
    }),
    postGenerate: ({ context }) => {
      context.worker.send({
        type: 'generate',
        data: toWorkerMessages(context.messages),
        options: { maxNewTokens: context.maxNewTokens },
      });
    },
    postInterrupt: ({ context }) => context.worker.send({ type: 'interrupt' }),
    postReset: ({ context }) => context.worker.send({ type: 'reset' }),
    clearConversation: assign({
      messages: [],
      tps: null,
      numTokens: null,
      seconds: null,
      error: null,
    }),
    appendAssistantMessage: assign({
      messages: ({ context }) => [...context.messages, { role: 'assistant' as const, content: '' }],
    }),
    appendOutput: assign(({ context, event }) => {
      assertEvent(event, 'worker.update');
      const { output, tps, numTokens, channel } = event.message;
      const messages = context.messages.slice();
      const last = messages.at(-1);
      if (last?.role === 'assistant') {
        messages[messages.length - 1] =
          channel === 'thinking'
            ? { ...last, thinking: (last.thinking ?? '') + output }
            : { ...last, content: last.content + output };
      }
      return { messages, tps: tps ?? context.tps, numTokens };
    }),
    storeCompletion: assign(({ event }) => {
      assertEvent(event, 'worker.complete');
      return { numTokens: event.message.numTokens, seconds: event.message.seconds };
    }),
    storeError: assign({
      error: ({ event }) => {
        assertEvent(event, 'worker.error');
        return event.message.data;
      },
    }),
    logError: ({ event }) => {
      assertEvent(event, 'worker.error');
      // Spec: worker error events are logged to the console.
      console.error(event.message.data);
    },
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({
    worker: input.worker,
    maxNewTokens: input.maxNewTokens ?? 1024,
    messages: [],
    draft: '',
    tps: null,
    numTokens: null,
    seconds: null,
    error: null,
  }),
  initial: 'unavailable',
  on: {
    'chat.input': { actions: 'setDraft' },
  },
  states: {
    /** The text box is disabled until the model is ready (spec); sends are ignored. */
    unavailable: {
      on: { 'worker.ready': 'idle' },
    },
    idle: {
      on: {
        'chat.send': {
          guard: 'hasText',
          target: 'generating',
          actions: ['appendUserMessage', 'clearDraftAndStats', 'postGenerate'],
        },
        'chat.reset': { actions: ['postReset', 'clearConversation'] },
      },
    },
    generating: {
      on: {
        'worker.start': { actions: 'appendAssistantMessage' },
        'worker.update': { actions: 'appendOutput' },
        'worker.complete': { target: 'idle', actions: 'storeCompletion' },
        'worker.error': {
          guard: 'isGenerateError',
          target: 'idle',
          actions: ['logError', 'storeError'],
        },
        'chat.stop': { actions: 'postInterrupt' },
        'chat.reset': {
          target: 'resetting',
          actions: ['postInterrupt', 'postReset', 'clearConversation'],
        },
      },
    },
    /** Reset during generation: ignore the tail of the interrupted run until it completes. */
    resetting: {
      on: {
        'worker.complete': 'idle',
        'worker.error': { guard: 'isGenerateError', target: 'idle' },
      },
    },
  },
});

export type ChatSnapshot = SnapshotFrom<typeof chatMachine>;
export const selectMessages = (s: ChatSnapshot) => s.context.messages;
export const selectDraft = (s: ChatSnapshot) => s.context.draft;
export const selectIsGenerating = (s: ChatSnapshot) =>
  s.matches('generating') || s.matches('resetting');
export const selectIsReady = (s: ChatSnapshot) => !s.matches('unavailable');
export const selectChatError = (s: ChatSnapshot) => s.context.error;
