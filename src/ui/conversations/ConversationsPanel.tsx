/**
 * The Conversations panel bound to its actor, in a chunk of its own fetched after the first paint.
 * The settings form (settings/SettingsPanel.tsx) and the Stored models dialog
 * (storage/StoredModelsDialog.tsx) are chunks of their own, fetched when opened.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { type conversationsMachine } from '../../machines/conversationsMachine';
import {
  selectConversationList,
  selectCurrentConversation,
  selectImportError,
  selectMaxTokensCap,
  selectStorageError,
} from '../../machines/conversationsSelectors';
import { parseConversationFile } from '../../shared/conversations/file';
import { ConversationsNav } from './ConversationsNav';
import './conversations.css';

export function ConversationsPanel({
  conversations,
}: {
  conversations: ActorRefFrom<typeof conversationsMachine>;
}) {
  const list = useSelector(conversations, selectConversationList);
  const current = useSelector(conversations, selectCurrentConversation);
  const storageError = useSelector(conversations, selectStorageError);
  const importError = useSelector(conversations, selectImportError);
  const cap = useSelector(conversations, selectMaxTokensCap);
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
      onImport={(text, size) =>
        conversations.send({
          type: 'conversation.import',
          result: parseConversationFile(text, size, cap),
        })
      }
      onDismissError={() => conversations.send({ type: 'conversation.dismissError' })}
    />
  );
}
