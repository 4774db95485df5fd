import { Suspense, lazy, useCallback } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { type ChatEvent, type chatMachine } from '../../machines/chatMachine';
import {
  selectChatError,
  selectContinued,
  selectDraft,
  selectIsGenerating,
  selectIsReady,
  selectMessages,
  selectNumTokens,
  selectOmitted,
  selectSeconds,
  selectStats,
  selectTps,
} from '../../machines/chatSelectors';
import { ChatInput } from './ChatInput';
import { MessageList } from './MessageList';
import { SpeedLine } from './SpeedLine';

// The context window's usage line and marker load with the first ready model, not the first screen.
const ContextUsage = lazy(() => import('./ContextUsage'));

/** Spec: three clickable example prompts for an empty conversation. */
export const EXAMPLE_PROMPTS = [
  'Give me some travel tips for Paris.',
  'Write a Java function that computes the area of a rectangle.',
  'What is the difference between weather and climate?',
] as const;

export function ChatView({
  chat,
  showMessages,
}: {
  chat: ActorRefFrom<typeof chatMachine>;
  /** False on the start screen: only the (disabled) input shows. */
  showMessages: boolean;
}) {
  const messages = useSelector(chat, selectMessages);
  const draft = useSelector(chat, selectDraft);
  const generating = useSelector(chat, selectIsGenerating);
  const ready = useSelector(chat, selectIsReady);
  const tps = useSelector(chat, selectTps);
  const numTokens = useSelector(chat, selectNumTokens);
  const seconds = useSelector(chat, selectSeconds);
  const stats = useSelector(chat, selectStats);
  const error = useSelector(chat, selectChatError);
  const omitted = useSelector(chat, selectOmitted);
  const continued = useSelector(chat, selectContinued);
  // Stable, so the memoized messages do not re-render for it.
  const send = useCallback((event: ChatEvent) => chat.send(event), [chat]);

  return (
    <section className="chat" aria-label="Chat">
      {showMessages && (
        <MessageList
          messages={messages}
          generating={generating}
          ready={ready}
          examples={EXAMPLE_PROMPTS}
          onExample={(text) => chat.send({ type: 'chat.send', text })}
          send={send}
          cut={
            omitted > 0
              ? {
                  index: omitted,
                  node: (
                    <Suspense fallback={null}>
                      <ContextUsage chat={chat} cut />
                    </Suspense>
                  ),
                }
              : undefined
          }
        />
      )}
      {error && (
        <p className="chat-error" role="alert">
          {error}
        </p>
      )}
      <SpeedLine
        generating={generating}
        tps={tps}
        numTokens={numTokens}
        seconds={seconds}
        stats={stats}
        continued={continued}
        onReset={() => chat.send({ type: 'chat.reset' })}
      />
      <ChatInput
        value={draft}
        ready={ready}
        generating={generating}
        onChange={(text) => chat.send({ type: 'chat.input', text })}
        onSend={() => chat.send({ type: 'chat.send' })}
        onStop={() => chat.send({ type: 'chat.stop' })}
      />
      {ready && (
        <Suspense fallback={null}>
          <ContextUsage chat={chat} />
        </Suspense>
      )}
    </section>
  );
}
