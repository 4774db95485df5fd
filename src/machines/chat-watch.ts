import { Actor, StateMachine, fromCallback, type ActorRefFrom, type EventObject } from 'xstate';
import { chatMachine } from './chatMachine';
import { selectIsGenerating } from './chatSelectors';
import type { ChatPort, ChatState, ConversationsEvent } from './conversationsMachine';

type ChatRef = ActorRefFrom<typeof chatMachine>;

/** Whether the port is a chat machine actor (what watchChat can subscribe to), provided or not. */
function isChatRef(port: ChatPort): port is ChatRef {
  return (
    port instanceof Actor && port.logic instanceof StateMachine && port.logic.id === chatMachine.id
  );
}

/**
 * Reports the chat's messages, settings and context-window state to the conversations machine as
 * `chat.changed`, once per change (at most one per frame while a reply streams: worker updates
 * are coalesced).
 */
export const watchChat = fromCallback<EventObject, { chat: ChatPort }>(({ input, sendBack }) => {
  // The app machine hands in the chat actor itself (a ChatPort is the part the machine sends to).
  const chat = input.chat;
  if (!isChatRef(chat)) return;
  let last: ChatState | null = null;
  const report = (snapshot: ReturnType<ChatRef['getSnapshot']>) => {
    const { messages, settings, modelId, whenTooLong, omitted } = snapshot.context;
    const state: ChatState = {
      messages,
      settings,
      modelId,
      streaming: selectIsGenerating(snapshot),
      // Only what differs from the default, so a conversation saved before these were kept
      // compares equal to itself when opened (and is not saved again for nothing).
      whenTooLong: whenTooLong === 'refuse' ? whenTooLong : undefined,
      omitted: omitted || undefined,
    };
    if (
      last &&
      last.messages === state.messages &&
      last.settings === state.settings &&
      last.streaming === state.streaming &&
      last.whenTooLong === state.whenTooLong &&
      last.omitted === state.omitted
    )
      return;
    last = state;
    sendBack({ type: 'chat.changed', ...state } satisfies ConversationsEvent);
  };
  const subscription = chat.subscribe(report);
  return () => subscription.unsubscribe();
});
