import { useLayoutEffect, useRef, type KeyboardEvent } from 'react';
import { clampInputHeight } from '../format';
import { SendIcon, StopIcon } from './Icons';

export interface ChatInputProps {
  value: string;
  ready: boolean;
  generating: boolean;
  onChange: (text: string) => void;
  onSend: () => void;
  onStop: () => void;
}

/**
 * The text box (PRODUCT.md §2): placeholder 'Ask anything...', disabled until the model is ready with the
 * tooltip 'Model is ready' / 'Model not loaded yet', grows from 24 to 200 px, Enter sends and
 * Shift+Enter inserts a new line. The send button is active only with text; while generating it
 * becomes a stop button.
 */
export function ChatInput({ value, ready, generating, onChange, onSend, onStop }: ChatInputProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const hasText = value.trim().length > 0;

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = '';
    el.style.height = `${clampInputHeight(el.scrollHeight)}px`;
  }, [value]);

  useLayoutEffect(() => {
    if (ready && !generating) ref.current?.focus();
  }, [ready, generating]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      if (hasText && !generating) onSend();
    }
  };

  return (
    <div className="chat-input">
      <textarea
        ref={ref}
        rows={1}
        className="chat-textarea"
        aria-label="Message"
        placeholder="Ask anything..."
        title={ready ? 'Model is ready' : 'Model not loaded yet'}
        disabled={!ready}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {generating ? (
        <button
          type="button"
          className="icon-button stop"
          onClick={onStop}
          aria-label="Stop generating"
        >
          <StopIcon />
        </button>
      ) : (
        <button
          type="button"
          className="icon-button send"
          onClick={onSend}
          disabled={!ready || !hasText}
          aria-label="Send message"
        >
          <SendIcon />
        </button>
      )}
    </div>
  );
}
