import { afterEach, describe, expect, it, vi } from 'vitest';
import { StrictMode } from 'react';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AssistantMarkdown } from './AssistantMarkdown';
import { manualFrames } from './test-frames';

afterEach(() => vi.unstubAllGlobals());

describe('AssistantMarkdown', () => {
  it('renders each streamed update in the commit that brings it, waiting for no frame', () => {
    // The worker actor delivers at most one update per animation frame; a frame of its own here
    // would make the browser lay out and paint twice per update.
    const frames = manualFrames();
    const { container, rerender } = render(<AssistantMarkdown content="Hel" streaming />);
    expect(container.textContent).toBe('Hel');
    rerender(<AssistantMarkdown content="Hello **wor" streaming />);
    expect(container.textContent).toContain('wor');
    rerender(<AssistantMarkdown content="Hello **world**" streaming />);
    expect(container.querySelector('strong')?.textContent).toBe('world');
    expect(frames.pending).toBe(0);
  });

  it('renders the final text at once when streaming ends', () => {
    const frames = manualFrames();
    const { container, rerender } = render(<AssistantMarkdown content="a $x$" streaming />);
    rerender(<AssistantMarkdown content={'# Done\n\nfinal'} streaming={false} />);
    expect(frames.pending).toBe(0);
    expect(container.querySelector('h1')?.textContent).toBe('Done');
    expect(container.querySelector('.md-open')).toBeNull();
  });

  it('renders a finished message (not streaming) immediately, also under StrictMode', () => {
    manualFrames();
    const { container } = render(
      <StrictMode>
        <AssistantMarkdown
          content={'| a |\n|---|\n| 1 |\n\n<img src=x onerror=alert(1)>'}
          streaming={false}
        />
      </StrictMode>,
    );
    expect(container.querySelectorAll('table')).toHaveLength(1);
    expect(container.querySelector('img, [onerror]')).toBeNull();
    expect(container.querySelector('.markdown')?.children).toHaveLength(1);
  });

  it('a finished code block gets a real Copy button that copies its code; the sanitizer still drops model buttons', async () => {
    manualFrames();
    const user = userEvent.setup();
    const text =
      '```js\nconst a = 1;\n```\n\n<button class="code-copy" onclick="alert(1)">Copy</button>';
    const { container, rerender } = render(<AssistantMarkdown content={text} streaming />);
    // Not while streaming.
    expect(container.querySelector('.code-copy')).toBeNull();
    rerender(<AssistantMarkdown content={text} streaming={false} />);
    const pre = container.querySelector('pre');
    expect(pre).not.toBeNull();
    const button = await within(pre!).findByRole('button', { name: 'Copy code' });
    // Only the button made here: the one in the model's text was removed by the sanitizer.
    expect(container.querySelectorAll('button')).toHaveLength(1);
    expect(container.querySelector('[onclick]')).toBeNull();
    button.focus();
    await user.keyboard('{Enter}');
    await expect(navigator.clipboard.readText()).resolves.toBe('const a = 1;\n');
    expect(screen.getByText('Code copied')).toBeInTheDocument();
    // A new final text (the renderer rebuilds the blocks): the new block gets its button too.
    rerender(<AssistantMarkdown content={'```\nx\n```\n\n```\ny\n```'} streaming={false} />);
    await waitFor(() =>
      expect(container.querySelectorAll('pre > button.code-copy')).toHaveLength(2),
    );
  });
});
