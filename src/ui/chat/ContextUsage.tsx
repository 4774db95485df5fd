/**
 * The model's context window in the chat, loaded lazily with the first ready model: the usage line
 * under the input ("3,210 of 8,192 tokens", counted by the worker with the model's own template
 * and tokenizer), the choice of what a turn past the window does, and the marker where the
 * conversation stops being seen by the model.
 */
import { memo } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { chatMachine } from '../../machines/chatMachine';
import {
  selectContextWindow,
  selectReplyTokens,
  selectUsedTokens,
  selectWhenTooLong,
} from '../../machines/contextSelectors';
import './context-usage.css';

type Chat = ActorRefFrom<typeof chatMachine>;

// One formatter: toLocaleString builds a new one per call, and the chat re-renders per token.
const numbers = new Intl.NumberFormat('en-US');
const count = (n: number) => numbers.format(n);

/**
 * The usage line and the refusal setting (nothing before a model reports its window); with `cut`,
 * the marker instead (one lazy chunk for both).
 */
export default memo(function ContextUsage({ chat, cut = false }: { chat: Chat; cut?: boolean }) {
  return cut ? <ContextCut chat={chat} /> : <UsageLine chat={chat} />;
});

function UsageLine({ chat }: { chat: Chat }) {
  const window = useSelector(chat, selectContextWindow);
  const used = useSelector(chat, selectUsedTokens);
  const whenTooLong = useSelector(chat, selectWhenTooLong);
  const maxNewTokens = useSelector(chat, selectReplyTokens);
  if (!window) return null;
  const over = used !== null && used + maxNewTokens > window.tokens;
  const refuse = whenTooLong === 'refuse';
  return (
    <div className="context-usage">
      <span
        className={over ? 'context-count over' : 'context-count'}
        title={`The model's window: ${count(window.tokens)} tokens (${window.reason}).`}
      >
        {used === null
          ? `${count(window.tokens)}-token window`
          : `${count(used)} of ${count(window.tokens)} tokens`}
        {over &&
          (refuse
            ? ` · with Max new tokens (${count(maxNewTokens)}) past the window: sending is refused`
            : ` · with Max new tokens (${count(maxNewTokens)}) past the window: the oldest messages are left out`)}
      </span>
      {window.source === 'default' && (
        <span className="context-note">
          This model&apos;s config gives no context length: {count(window.tokens)} tokens assumed.
        </span>
      )}
      <label className="context-refuse">
        <input
          type="checkbox"
          checked={refuse}
          onChange={(e) =>
            chat.send({
              type: 'chat.whenTooLong',
              value: e.target.checked ? 'refuse' : 'drop-oldest',
            })
          }
        />
        Refuse instead of leaving out earlier messages
      </label>
    </div>
  );
}

/** The marker before the first message the model still sees. */
export function ContextCut({ chat }: { chat: Chat }) {
  const window = useSelector(chat, selectContextWindow);
  return (
    <li className="context-cut" role="note">
      Earlier messages are no longer seen by the model
      {window ? `: its window is ${count(window.tokens)} tokens.` : '.'}
    </li>
  );
}
