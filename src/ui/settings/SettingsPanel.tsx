/** The generation settings form bound to the chat actor; fetched when "Generation settings" opens. */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { type chatMachine } from '../../machines/chatMachine';
import {
  selectMaxTokensCap,
  selectRecommended,
  selectSettings,
} from '../../machines/chatSelectors';
import { describeRecommended } from '../../shared/recommended-settings';
import { SettingsForm } from './SettingsForm';

export function SettingsPanel({ chat }: { chat: ActorRefFrom<typeof chatMachine> }) {
  const settings = useSelector(chat, selectSettings);
  const cap = useSelector(chat, selectMaxTokensCap);
  const recommended = useSelector(chat, selectRecommended);
  const described = recommended ? describeRecommended(recommended) : '';
  return (
    <>
      {described && (
        // A new conversation starts with these; the user's own changes win.
        <p className="settings-recommended">
          Recommended for this model (a new conversation starts with them): {described}.
        </p>
      )}
      <SettingsForm
        settings={settings}
        maxTokensCap={cap}
        onChange={(patch) => chat.send({ type: 'chat.settings', patch })}
      />
    </>
  );
}
