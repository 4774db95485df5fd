import { afterEach, describe, expect, it, vi } from 'vitest';
import { StrictMode } from 'react';
import { render } from '@testing-library/react';
import { AssistantMarkdown } from './AssistantMarkdown';
import { manualFrames } from './test-frames';

afterEach(() => vi.unstubAllGlobals());

describe('AssistantMarkdown', () => {
  it('coalesces streamed updates to one render per animation frame', () => {
    const frames = manualFrames();
    const { container, rerender } = render(<AssistantMarkdown content="Hel" streaming />);
    for (const content of ['Hello', 'Hello **wor', 'Hello **world**'])
      rerender(<AssistantMarkdown content={content} streaming />);
    expect(frames.pending).toBe(1);
    expect(container.textContent).toBe(''); // nothing until the frame
    frames.flush();
    expect(container.querySelector('strong')?.textContent).toBe('world');
    expect(frames.pending).toBe(0);
  });

  it('renders the final text at once when streaming ends, dropping the pending frame', () => {
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
});
