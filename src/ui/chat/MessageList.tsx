import { Fragment, type ReactNode } from 'react';
import type { ChatEvent, DisplayMessage } from '../../machines/chatMachine';
import { AUTO_SCROLL_THRESHOLD_PX } from '../format';
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
 * Keeps the list (`content`'s parent) at its end while the user is there: a ResizeObserver on the
 * content, whose callback runs after the browser's own layout of the frame, so reading the sizes
 * there forces no synchronous layout, once a frame however many updates came (a layout effect
 * after every update forced one each time); it also follows height that settles after an update (a
 * block's end rendered in slices). Whether the user was near the end is judged against the height
 * at the previous layout, the end the user saw, so neither a tall block nor this function's own
 * scroll reads as the user scrolling up. A ref callback: set up when the content mounts, before
 * the first paint, so an opened conversation shows its end.
 */
function followEnd(content: HTMLElement | null) {
  const list = content?.parentElement;
  if (!content || !list) return;
  /** The list's scroll height at the last layout (0 at first: go to the end). */
  let laidOut = 0;
  const observer = new ResizeObserver(() => {
    if (laidOut - list.scrollTop - list.clientHeight <= AUTO_SCROLL_THRESHOLD_PX)
      list.scrollTop = list.scrollHeight;
    laidOut = list.scrollHeight;
  });
  observer.observe(content);
  return () => observer.disconnect();
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
  return (
    <div className="message-list" aria-live="polite">
      {messages.length === 0 ? (
        <div className="empty-chat" ref={followEnd}>
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
        <ol className="messages" ref={followEnd}>
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
