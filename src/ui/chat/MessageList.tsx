import { Fragment, useLayoutEffect, useRef, type ReactNode } from 'react';
import type { ChatEvent, DisplayMessage } from '../../machines/chatMachine';
import { isNearBottom } from '../format';
import { Message } from './Message';

export interface MessageListProps {
  messages: DisplayMessage[];
  generating: boolean;
  /**
   * A model is ready (default): without one, Regenerate, Edit, Continue and the pager are disabled,
   * as the chat machine ignores them then; Copy works.
   */
  ready?: boolean;
  /** Example prompts shown while the list is empty. */
  examples?: readonly string[];
  onExample?: (prompt: string) => void;
  /** Sends the message actions' events (Regenerate, Edit, Continue, the pager); a stable function. */
  send?: ((event: ChatEvent) => void) | undefined;
  /** The marker shown before message `index`, the first the model still sees. */
  cut?: { index: number; node: ReactNode } | undefined;
}

/**
 * The chat message list. Auto-scrolls on new content only if the user was within 120 px of the
 * bottom before the update (PRODUCT.md §2), so reading older messages is never interrupted.
 */
export function MessageList({
  messages,
  generating,
  ready = true,
  examples = [],
  onExample,
  send,
  cut,
}: MessageListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const onScroll = () => {
    if (ref.current) stick.current = isNearBottom(ref.current);
  };

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  return (
    <div className="message-list" ref={ref} onScroll={onScroll} aria-live="polite">
      {messages.length === 0 ? (
        <div className="empty-chat">
          <p className="ready">Ready!</p>
          {examples.length > 0 && (
            <ul className="examples" aria-label="Example prompts">
              {examples.map((prompt) => (
                <li key={prompt}>
                  <button type="button" className="example" onClick={() => onExample?.(prompt)}>
                    {prompt}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <ol className="messages">
          {messages.map((m, i) => (
            <Fragment key={i}>
              {cut?.index === i && cut.node}
              <Message
                message={m}
                streaming={generating && i === messages.length - 1}
                index={i}
                last={i === messages.length - 1}
                busy={generating || !ready}
                send={send}
              />
            </Fragment>
          ))}
        </ol>
      )}
    </div>
  );
}
