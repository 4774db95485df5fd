/** The generation settings form bound to the chat actor; fetched when "Generation settings" opens. */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { selectMaxTokensCap, selectSettings, type chatMachine } from '../../machines/chatMachine';
import { SettingsForm } from '../settings/SettingsForm';

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
