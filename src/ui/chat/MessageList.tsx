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
 * Without ResizeObserver (older browsers, jsdom) it does not auto-scroll.
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
  /** The list's scroll height at the browser's last layout: the bottom the user is judged by. */
  const laidOut = useRef(0);

  const onScroll = () => {
    const el = ref.current;
    // Judged against the bottom the user saw: a scroll event that follows this component's own
    // scroll after more content has come must not count as the user scrolling up.
    if (el)
      stick.current = isNearBottom({
        scrollTop: el.scrollTop,
        clientHeight: el.clientHeight,
        scrollHeight: laidOut.current || el.scrollHeight,
      });
  };

  // Follows the bottom from a ResizeObserver on the list and its content: its callback runs after
  // the browser's own layout of the frame, so reading `scrollHeight` there forces no synchronous
  // layout, once a frame however many updates came (a layout effect after every update forced one
  // each time), and it also follows height that settles after an update (a block's end rendered in
  // slices, the list resized). Set up before the first paint, so an opened conversation is shown
  // at its end.
  const empty = messages.length === 0;
  useLayoutEffect(() => {
    const el = ref.current;
    const content = el?.firstElementChild;
    if (!el || !content || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      laidOut.current = el.scrollHeight;
      if (stick.current) el.scrollTop = laidOut.current;
    });
    observer.observe(el);
    observer.observe(content);
    return () => observer.disconnect();
  }, [empty]);

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
