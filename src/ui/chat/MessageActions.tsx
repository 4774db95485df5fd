/**
 * The buttons under a message: Copy (its Markdown), the versions pager, Edit (a user message),
 * Regenerate and Continue (the last reply). Loaded lazily with the Markdown renderer, so none of it
 * is in the first load. While a reply streams, Regenerate, Edit, Continue and the pager are
 * disabled (the chat machine refuses them then too).
 */
import { useState, type FormEvent } from 'react';
import type { ChatEvent, DisplayMessage } from '../../machines/chatMachine';
import { versionCount, versionOf } from '../../machines/message-versions';
import { useCopy } from './use-copy';
import './message-actions.css';

export interface MessageActionsProps {
  message: DisplayMessage;
  index: number;
  /** The last message of the conversation (Regenerate and Continue apply to it only). */
  last: boolean;
  /** A reply is being written. */
  busy: boolean;
  send: (event: ChatEvent) => void;
}

function Pager({ message, index, busy, send }: Omit<MessageActionsProps, 'last'>) {
  const count = versionCount(message);
  if (count < 2) return null;
  const at = versionOf(message);
  const show = (version: number) => send({ type: 'chat.version', index, version });
  return (
    <span className="pager" role="group" aria-label="Versions">
      <button
        type="button"
        aria-label="Previous version"
        disabled={busy || at === 0}
        onClick={() => show(at - 1)}
      >
        ‹
      </button>
      {/* As wide for every version (the index padded with figure spaces, digits of one width), so
          the next button never moves under the pointer while paging. */}
      <span className="pager-count">
        {String(at + 1).padStart(String(count).length, '\u2007')} / {count}
      </span>
      <button
        type="button"
        aria-label="Next version"
        disabled={busy || at === count - 1}
        onClick={() => show(at + 1)}
      >
        ›
      </button>
    </span>
  );
}

function EditForm({
  message,
  index,
  send,
  busy,
  done,
}: Omit<MessageActionsProps, 'last'> & { done: () => void }) {
  const [text, setText] = useState(message.content);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send({ type: 'chat.edit', index, text });
    done();
  };
  return (
    <form className="edit-form" onSubmit={submit}>
      <textarea
        aria-label="Edit message"
        value={text}
        rows={3}
        // The form opens on a click of Edit: the text is what the person goes on with.
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') done();
        }}
      />
      <span className="edit-buttons">
        <button type="button" onClick={done}>
          Cancel
        </button>
        <button type="submit" disabled={busy || !text.trim()}>
          Send
        </button>
      </span>
    </form>
  );
}

export default function MessageActions(props: MessageActionsProps) {
  const { message, last, busy, send } = props;
  const { copy, copied, failed } = useCopy();
  const [editing, setEditing] = useState(false);
  const user = message.role === 'user';
  if (editing) return <EditForm {...props} done={() => setEditing(false)} />;
  return (
    <div className="message-actions">
      <Pager {...props} />
      <button type="button" aria-label="Copy message" onClick={() => void copy(message.content)}>
        Copy
      </button>
      {user && (
        <button
          type="button"
          aria-label="Edit and resend"
          disabled={busy}
          onClick={() => setEditing(true)}
        >
          Edit
        </button>
      )}
      {!user && last && (
        <button type="button" disabled={busy} onClick={() => send({ type: 'chat.regenerate' })}>
          Regenerate
        </button>
      )}
      {!user && last && message.ended?.by === 'limit' && (
        <button type="button" disabled={busy} onClick={() => send({ type: 'chat.continue' })}>
          Continue
        </button>
      )}
      <span className="copied" aria-live="polite">
        {copied ? 'Copied' : failed ? 'Copy failed: no clipboard access' : ''}
      </span>
    </div>
  );
}
