/**
 * The conversations, settings and stored-models panels bound to their actors. One lazily loaded
 * chunk: none of it weighs on the first page load.
 */
import { useEffect, useRef } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import {
  selectConversationList,
  selectCurrentConversation,
  selectImportError,
  selectStorageError,
  type conversationsMachine,
} from '../../machines/conversationsMachine';
import { selectMaxTokensCap, selectSettings, type chatMachine } from '../../machines/chatMachine';
import {
  selectLoadedModelId,
  selectPersisted,
  selectStorageEstimate,
  selectStoredModels,
  selectStoredModelsBusy,
  selectStoredModelsError,
  type storedModelsMachine,
} from '../../machines/storedModelsMachine';
import { ConversationsNav } from '../conversations/ConversationsNav';
import { SettingsForm } from '../settings/SettingsForm';
import { StoredModelsView } from '../storage/StoredModelsView';
import '../conversations/conversations.css';

export function ConversationsPanel({
  conversations,
}: {
  conversations: ActorRefFrom<typeof conversationsMachine>;
}) {
  const list = useSelector(conversations, selectConversationList);
  const current = useSelector(conversations, selectCurrentConversation);
  const storageError = useSelector(conversations, selectStorageError);
  const importError = useSelector(conversations, selectImportError);
  return (
    <ConversationsNav
      list={list}
      current={current}
      storageError={storageError}
      importError={importError}
      onNew={() => conversations.send({ type: 'conversation.new' })}
      onSelect={(id) => conversations.send({ type: 'conversation.select', id })}
      onDelete={(id) => conversations.send({ type: 'conversation.delete', id })}
      onRename={(id, title) => conversations.send({ type: 'conversation.rename', id, title })}
      onImport={(text, size) => conversations.send({ type: 'conversation.import', text, size })}
      onDismissError={() => conversations.send({ type: 'conversation.dismissError' })}
    />
  );
}

export function SettingsPanel({ chat }: { chat: ActorRefFrom<typeof chatMachine> }) {
  const settings = useSelector(chat, selectSettings);
  const cap = useSelector(chat, selectMaxTokensCap);
  return (
    <SettingsForm
      settings={settings}
      maxTokensCap={cap}
      onChange={(patch) => chat.send({ type: 'chat.settings', patch })}
    />
  );
}

export function StoredModelsDialog({
  storedModels,
  onClose,
}: {
  storedModels: ActorRefFrom<typeof storedModelsMachine>;
  onClose: () => void;
}) {
  const models = useSelector(storedModels, selectStoredModels);
  const estimate = useSelector(storedModels, selectStorageEstimate);
  const persisted = useSelector(storedModels, selectPersisted);
  const busy = useSelector(storedModels, selectStoredModelsBusy);
  const error = useSelector(storedModels, selectStoredModelsError);
  const loadedId = useSelector(storedModels, selectLoadedModelId);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    storedModels.send({ type: 'storedModels.refresh' });
    const el = dialog.current;
    if (el && !el.open && typeof el.showModal === 'function') el.showModal();
  }, [storedModels]);
  return (
    <dialog
      ref={dialog}
      className="stored-models-dialog"
      aria-labelledby="stored-models-title"
      onClose={onClose}
    >
      <h2 id="stored-models-title">Stored models</h2>
      <StoredModelsView
        models={models}
        estimate={estimate}
        persisted={persisted}
        loadedId={loadedId}
        busy={busy}
        error={error}
        onDelete={(id) => storedModels.send({ type: 'storedModels.delete', id })}
        onPersist={() => storedModels.send({ type: 'storedModels.persist' })}
        onRefresh={() => storedModels.send({ type: 'storedModels.refresh' })}
      />
      <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
