import { describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { readyChat as readyChatWith } from '../../machines/test-helpers';
import ContextUsage, { ContextCut } from './ContextUsage';
import { MessageList } from './MessageList';

vi.mock('../markdown/AssistantMarkdown', () => ({
  AssistantMarkdown: ({ content }: { content: string }) => <div>{content}</div>,
}));

function readyChat(source: 'config' | 'default' = 'config', tokens = 8192) {
  return readyChatWith({ tokens, source, reason: 'why' }, 'q4f16');
}

/** The worker's answer to the chat's latest count. */
function answerCount(chat: ReturnType<typeof readyChat>['chat'], tokens: number) {
  act(() => {
    chat.send({ type: 'chat.count' });
    const seq = chat.getSnapshot().context.countSeq;
    chat.send({ type: 'worker.count', message: { status: 'count', seq, tokens, draftTokens: 1 } });
  });
}

describe('ContextUsage', () => {
  it('the window, then the tokens the worker counted: "3,210 of 8,192 tokens"', () => {
    const { chat } = readyChat();
    render(<ContextUsage chat={chat} />);
    expect(screen.getByText('8,192-token window')).toBeInTheDocument();
    answerCount(chat, 3210);
    const line = screen.getByText('3,210 of 8,192 tokens');
    expect(line).toHaveAttribute('title', "The model's window: 8,192 tokens (why).");
  });

  it('past the window with the reply: says what happens, and the refusal setting changes it', async () => {
    const { chat } = readyChat('config', 2048);
    render(<ContextUsage chat={chat} />);
    answerCount(chat, 1500);
    // 1,500 + Max new tokens (1,024) > 2,048.
    expect(
      screen.getByText(/past the window: the oldest messages are left out/),
    ).toBeInTheDocument();
    await userEvent.click(
      screen.getByRole('checkbox', { name: 'Refuse instead of leaving out earlier messages' }),
    );
    expect(chat.getSnapshot().context.whenTooLong).toBe('refuse');
    expect(screen.getByText(/past the window: sending is refused/)).toBeInTheDocument();
  });

  it('a config without a context length: the assumed default is said', () => {
    const { chat } = readyChat('default', 2048);
    render(<ContextUsage chat={chat} />);
    expect(
      screen.getByText("This model's config gives no context length: 2,048 tokens assumed."),
    ).toBeInTheDocument();
  });

  it('the marker names the window', () => {
    const { chat } = readyChat();
    render(
      <ol>
        <ContextCut chat={chat} />
      </ol>,
    );
    expect(screen.getByRole('note')).toHaveTextContent(
      'Earlier messages are no longer seen by the model: its window is 8,192 tokens.',
    );
  });

  it('the message list shows the marker before the first message the model still sees', () => {
    const { chat } = readyChat();
    render(
      <MessageList
        generating={false}
        messages={[
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'one' },
          { role: 'user', content: 'second' },
        ]}
        cut={{ index: 2, node: <ContextCut chat={chat} /> }}
      />,
    );
    const note = screen.getByRole('note');
    const follows = (a: Node, b: Node) =>
      Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    expect(follows(screen.getByText('one'), note)).toBe(true);
    expect(follows(note, screen.getByText('second'))).toBe(true);
  });
});
