import { Suspense, lazy, memo } from 'react';
import type { ChatEvent, DisplayMessage } from '../../machines/chatMachine';
import { BotIcon, UserIcon } from './Icons';

/**
 * marked + DOMPurify (and KaTeX, which the renderer loads itself) stay out of the first-load
 * bundle: the renderer is fetched when the model becomes ready (see `preloadMarkdown`), and until
 * it arrives the text shows as plain text.
 */
const loadMarkdown = () => import('../markdown/AssistantMarkdown');
const LazyMarkdown = lazy(() => loadMarkdown().then((m) => ({ default: m.AssistantMarkdown })));

// The buttons under each message come with the renderer (not in the first load either).
const loadActions = () => import('./MessageActions');
const LazyActions = lazy(loadActions);

export function preloadMarkdown(): void {
  void loadMarkdown();
  void loadActions();
}

/**
 * What a message needs for its action buttons (no `send`: no buttons). Flat values, so the
 * memoized message re-renders only when one of them changes.
 */
export interface MessageActionProps {
  index?: number;
  last?: boolean;
  /** A reply is being written (Regenerate, Edit, Continue and the pager wait). */
  busy?: boolean;
  send?: ((event: ChatEvent) => void) | undefined;
}

function Actions({
  message,
  index = 0,
  last = false,
  busy = false,
  send,
}: MessageActionProps & { message: DisplayMessage }) {
  if (!send) return null;
  return (
    <Suspense fallback={null}>
      <LazyActions message={message} index={index} last={last} busy={busy} send={send} />
    </Suspense>
  );
}

function AssistantMarkdown({ content, streaming }: { content: string; streaming: boolean }) {
  return (
    <Suspense fallback={<p className="plain">{content}</p>}>
      <LazyMarkdown content={content} streaming={streaming} />
    </Suspense>
  );
}

/** A chat bubble: assistant = grey, Markdown; user (any other role) = blue, plain text. */
export const Message = memo(function Message({
  message,
  streaming,
  ...actions
}: {
  message: DisplayMessage;
  streaming: boolean;
} & MessageActionProps) {
  if (message.role !== 'assistant') {
    return (
      <li className="message message-user">
        <div className="message-body">
          <div className="bubble bubble-user">
            <p className="plain">{message.content}</p>
          </div>
          <Actions message={message} {...actions} />
        </div>
        <span className="avatar avatar-user">
          <UserIcon />
          <span className="sr-only">You</span>
        </span>
      </li>
    );
  }
  const awaiting = message.content.length === 0 && !message.thinking;
  return (
    <li className="message message-assistant">
      <span className="avatar avatar-bot">
        <BotIcon />
        <span className="sr-only">Assistant</span>
      </span>
      <div className="message-body">
        <div className="bubble bubble-assistant">
          {message.thinking !== undefined && (
            <details className="thinking" open={streaming && message.content.length === 0}>
              <summary>Thinking…</summary>
              <AssistantMarkdown
                content={message.thinking}
                streaming={streaming && message.content.length === 0}
              />
            </details>
          )}
          {awaiting ? (
            <span className="dots" role="status" aria-label="Waiting for the reply">
              <span />
              <span />
              <span />
            </span>
          ) : (
            <AssistantMarkdown content={message.content} streaming={streaming} />
          )}
          {message.ended && (
            <p className="reply-ended">
              {message.ended.by === 'stop'
                ? 'Stopped'
                : `Reached the ${message.ended.limit}-token limit`}
            </p>
          )}
        </div>
        {!streaming && <Actions message={message} {...actions} />}
      </div>
    </li>
  );
});
