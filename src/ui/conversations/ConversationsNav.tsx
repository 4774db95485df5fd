import { useId, useRef, useState, type FormEvent } from 'react';
import type { Conversation, ConversationSummary } from '../../shared/conversations/types';
import { checkTitle } from '../../shared/conversations/types';
import {
  IMPORT_MAX_BYTES,
  exportFileName,
  toJson,
  toMarkdown,
} from '../../shared/conversations/file';
import { downloadText } from '../dataset/download';

export interface ConversationsNavProps {
  list: ConversationSummary[];
  current: Conversation | null;
  storageError: string | null;
  importError: string | null;
  onNew: () => void;
  onSelect: (id: string) => void;
  onDelete: (id: string) => void;
  onRename: (id: string, title: string) => void;
  /** The file's text ('' when it is too large to read) and its size in bytes. */
  onImport: (text: string, size: number) => void;
  onDismissError: () => void;
}

function Entry({
  summary,
  current,
  onSelect,
  onDelete,
  onRename,
}: {
  summary: ConversationSummary;
  current: boolean;
  onSelect: () => void;
  onDelete: () => void;
  onRename: (title: string) => void;
}) {
  // Which inline step is open is ephemeral UI state; the conversation itself lives in the machine.
  const [mode, setMode] = useState<'view' | 'confirm' | 'rename'>('view');
  const [title, setTitle] = useState(summary.title);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    const problem = checkTitle(title);
    if (problem) {
      setError(problem);
      return;
    }
    onRename(title);
    setMode('view');
    setError(null);
  };

  return (
    <li className={current ? 'conversation current' : 'conversation'}>
      {mode === 'rename' ? (
        <form className="conversation-rename" onSubmit={submitRename}>
          <label htmlFor={inputId}>Name</label>
          <input
            id={inputId}
            value={title}
            autoFocus
            aria-invalid={error !== null}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && setMode('view')}
          />
          <button type="submit">Save name</button>
          <button type="button" onClick={() => setMode('view')}>
            Cancel
          </button>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
        </form>
      ) : (
        <button
          type="button"
          className="conversation-title"
          aria-current={current ? 'page' : undefined}
          onClick={onSelect}
        >
          {summary.title}
        </button>
      )}
      {mode === 'view' && (
        <span className="conversation-actions">
          <button
            type="button"
            className="link-button"
            aria-label={`Rename ${summary.title}`}
            onClick={() => {
              setTitle(summary.title);
              setMode('rename');
            }}
          >
            Rename
          </button>
          <button
            type="button"
            className="link-button"
            aria-label={`Delete ${summary.title}`}
            onClick={() => setMode('confirm')}
          >
            Delete
          </button>
        </span>
      )}
      {mode === 'confirm' && (
        <span className="conversation-confirm" role="group" aria-label="Confirm delete">
          <span>Delete “{summary.title}”?</span>
          <button
            type="button"
            className="danger"
            autoFocus
            onClick={() => {
              setMode('view');
              onDelete();
            }}
          >
            Delete conversation
          </button>
          <button type="button" onClick={() => setMode('view')}>
            Keep it
          </button>
        </span>
      )}
    </li>
  );
}

/** The export buttons: label, file extension, serialiser and MIME type. */
const EXPORTS = [
  { label: 'Export JSON', ext: 'json', write: toJson, type: 'application/json' },
  { label: 'Export Markdown', ext: 'md', write: toMarkdown, type: 'text/markdown' },
] as const;

/** The saved conversations: New chat, one entry each, export and import. */
export function ConversationsNav(props: ConversationsNavProps) {
  const { list, current } = props;
  const fileRef = useRef<HTMLInputElement>(null);
  const importId = useId();

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    // An oversized file is refused without reading it.
    const text = file.size > IMPORT_MAX_BYTES ? '' : await file.text();
    props.onImport(text, file.size);
    if (fileRef.current) fileRef.current.value = '';
  };

  return (
    <nav className="conversations" aria-label="Conversations">
      <button type="button" className="primary new-chat" onClick={props.onNew}>
        New chat
      </button>
      {props.storageError && (
        <div className="storage-error" role="alert">
          <p>{props.storageError}</p>
          <button type="button" className="link-button" onClick={props.onDismissError}>
            Dismiss
          </button>
        </div>
      )}
      {list.length === 0 ? (
        <p className="conversations-empty">No saved conversations yet.</p>
      ) : (
        <ul className="conversation-list">
          {list.map((summary) => (
            <Entry
              key={summary.id}
              summary={summary}
              current={summary.id === current?.id}
              onSelect={() => props.onSelect(summary.id)}
              onDelete={() => props.onDelete(summary.id)}
              onRename={(title) => props.onRename(summary.id, title)}
            />
          ))}
        </ul>
      )}
      <div className="conversation-files">
        {current &&
          current.messages.length > 0 &&
          EXPORTS.map(({ label, ext, write, type }) => (
            <button
              key={ext}
              type="button"
              className="secondary"
              onClick={() => downloadText(exportFileName(current, ext), write(current), type)}
            >
              {label}
            </button>
          ))}
        <label htmlFor={importId} className="import-label">
          Import conversation
        </label>
        <input
          id={importId}
          ref={fileRef}
          type="file"
          accept="application/json,.json"
          onChange={(e) => void importFile(e.target.files?.[0])}
        />
        {props.importError && (
          <p className="field-error" role="alert">
            {props.importError}
          </p>
        )}
      </div>
    </nav>
  );
}
