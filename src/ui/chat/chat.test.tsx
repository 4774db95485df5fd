import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ChatInput } from './ChatInput';
import { SpeedLine } from './SpeedLine';
import { ProgressBar } from './ProgressBar';
import { MessageList } from './MessageList';
import type { DisplayMessage } from '../../machines/chatMachine';

vi.mock('../markdown/AssistantMarkdown', () => ({
  AssistantMarkdown: ({ content }: { content: string }) => <div data-testid="md">{content}</div>,
}));

function input(overrides: Partial<Parameters<typeof ChatInput>[0]> = {}) {
  const props = {
    value: '',
    ready: true,
    generating: false,
    onChange: vi.fn(),
    onSend: vi.fn(),
    onStop: vi.fn(),
    ...overrides,
  };
  render(<ChatInput {...props} />);
  return props;
}

describe('ChatInput', () => {
  it('disabled with the tooltip until the model is ready', () => {
    input({ ready: false });
    const box = screen.getByRole('textbox', { name: 'Message' });
    expect(box).toBeDisabled();
    expect(box).toHaveAttribute('title', 'Model not loaded yet');
    expect(box).toHaveAttribute('placeholder', 'Ask anything...');
  });

  it("enabled with 'Model is ready' when ready", () => {
    input();
    expect(screen.getByRole('textbox')).toHaveAttribute('title', 'Model is ready');
  });

  it('Enter sends, Shift+Enter does not', async () => {
    const props = input({ value: 'hello' });
    const box = screen.getByRole('textbox');
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(props.onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledTimes(1);
  });

  it('Enter with empty text does not send; the send button is disabled', () => {
    const props = input({ value: '   ' });
    fireEvent.keyDown(screen.getByRole('textbox'), { key: 'Enter' });
    expect(props.onSend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
  });

  it('while generating the send button becomes a stop button', async () => {
    const props = input({ value: 'x', generating: true });
    expect(screen.queryByRole('button', { name: 'Send message' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Stop generating' }));
    expect(props.onStop).toHaveBeenCalled();
    fireEvent.keyDown(screen.getByRole('textbox'), { key: 'Enter' });
    expect(props.onSend).not.toHaveBeenCalled();
  });

  it('grows with its content between 24 and 200 px', () => {
    const idle = {
      ready: true,
      generating: false,
      onChange: () => {},
      onSend: () => {},
      onStop: () => {},
    };
    const { rerender } = render(<ChatInput {...idle} value="a" />);
    const box = screen.getByRole('textbox');
    Object.defineProperty(box, 'scrollHeight', { configurable: true, value: 500 });
    rerender(<ChatInput {...idle} value={'a\n'.repeat(30)} />);
    expect(box.style.height).toBe('200px');
    Object.defineProperty(box, 'scrollHeight', { configurable: true, value: 10 });
    rerender(<ChatInput {...idle} value="b" />);
    expect(box.style.height).toBe('24px');
  });
});

describe('SpeedLine', () => {
  it('shows tokens per second with two decimals while generating', () => {
    render(
      <SpeedLine
        generating
        tps={12.3456}
        numTokens={10}
        seconds={null}
        stats={null}
        onReset={() => {}}
      />,
    );
    expect(screen.getByText('12.35 tokens/second')).toBeInTheDocument();
  });

  it("after completion: 'Generated N tokens in X seconds', a Reset link and prefill/decode apart", async () => {
    const onReset = vi.fn();
    const stats = { promptTokens: 30, ttft: 0.21, numTokens: 42, seconds: 2.5, decodeTps: 18.2 };
    render(
      <SpeedLine
        generating={false}
        tps={18.2}
        numTokens={42}
        seconds={2.5}
        stats={stats}
        onReset={onReset}
      />,
    );
    // Regression: the line mixed a decode rate into a total that included prefill.
    expect((await screen.findByText(/Generated 42 tokens/)).textContent).toBe(
      'Generated 42 tokens in 2.50 seconds. Reset',
    );
    expect(
      screen.getByText(
        'Prefill: 30 prompt tokens, first token after 0.21 s · Decode: 18.20 tokens/s',
      ),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Reset' }));
    expect(onReset).toHaveBeenCalled();
  });

  it("after a Continue: the continued part's tokens, said as '+N'", async () => {
    const props = { tps: 18.2, numTokens: 8, seconds: 0.5, stats: null, onReset: () => {} };
    render(<SpeedLine generating={false} continued {...props} />);
    // Regression: after a Continue the line gave the continued part's count as if it were the
    // whole reply's.
    expect((await screen.findByText(/Generated/)).textContent).toBe(
      'Generated +8 tokens in 0.50 seconds. Reset',
    );
  });

  it('shows nothing when stats are cleared', () => {
    const { container } = render(
      <SpeedLine
        generating={false}
        tps={null}
        numTokens={null}
        seconds={null}
        stats={null}
        onReset={() => {}}
      />,
    );
    expect(container).toBeEmptyDOMElement();
  });
});

describe('ProgressBar', () => {
  it('shows label, two-decimal percentage and 1024-based size', () => {
    render(<ProgressBar file="onnx/model_q4f16.onnx" progress={33.333} total={1.5 * 1024 ** 3} />);
    const bar = screen.getByRole('progressbar', { name: 'onnx/model_q4f16.onnx' });
    expect(bar).toHaveTextContent('onnx/model_q4f16.onnx (33.33% of 1.50GB)');
    expect(bar).toHaveAttribute('aria-valuenow', '33.33');
  });
  it('omits the size without a numeric total', () => {
    render(<ProgressBar file="config.json" progress={100} />);
    expect(screen.getByRole('progressbar')).toHaveTextContent('config.json (100.00%)');
  });
});

describe('MessageList', () => {
  it('marks a reply ended by Stop, and one cut by the token limit', () => {
    const messages: DisplayMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'half', ended: { by: 'stop' } },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'long', ended: { by: 'limit', limit: 48 } },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'done' },
    ];
    render(<MessageList messages={messages} generating={false} />);
    expect(screen.getAllByText('Stopped')).toHaveLength(1);
    expect(screen.getAllByText('Reached the 48-token limit')).toHaveLength(1);
  });

  it("empty: 'Ready!' and clickable example prompts", async () => {
    const onExample = vi.fn();
    render(
      <MessageList
        messages={[]}
        generating={false}
        examples={['Tips for Paris']}
        onExample={onExample}
      />,
    );
    expect(screen.getByText('Ready!')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Tips for Paris' }));
    expect(onExample).toHaveBeenCalledWith('Tips for Paris');
  });

  it('user text is plain text; an empty assistant message shows three pulsing dots', () => {
    const messages: DisplayMessage[] = [
      { role: 'user', content: '<b>not bold</b>' },
      { role: 'assistant', content: '' },
    ];
    render(<MessageList messages={messages} generating />);
    expect(screen.getByText('<b>not bold</b>')).toBeInTheDocument();
    expect(
      screen.getByRole('status', { name: 'Waiting for the reply' }).querySelectorAll('span'),
    ).toHaveLength(3);
  });

  it('reasoning shows in a collapsible Thinking… block apart from the answer', async () => {
    render(
      <MessageList
        messages={[{ role: 'assistant', content: 'answer', thinking: 'hmm' }]}
        generating={false}
      />,
    );
    expect(screen.getByText('Thinking…').closest('details')).toHaveTextContent('hmm');
    expect((await screen.findAllByTestId('md')).map((e) => e.textContent)).toEqual([
      'hmm',
      'answer',
    ]);
  });
});
