import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, render } from '@testing-library/react';
import { MessageList } from './MessageList';
import type { DisplayMessage } from '../../machines/chatMachine';

vi.mock('../markdown/AssistantMarkdown', () => ({
  AssistantMarkdown: ({ content }: { content: string }) => <div data-testid="md">{content}</div>,
}));

/**
 * jsdom lays nothing out and has no ResizeObserver: this one records what is observed, and
 * `layout()` delivers what the browser delivers after a frame's layout, one call per observer.
 */
class FakeResizeObserver {
  static live = new Set<FakeResizeObserver>();
  readonly targets = new Set<Element>();
  constructor(private readonly callback: () => void) {
    FakeResizeObserver.live.add(this);
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  disconnect() {
    this.targets.clear();
    FakeResizeObserver.live.delete(this);
  }
  static layout() {
    act(() => {
      for (const o of FakeResizeObserver.live) if (o.targets.size > 0) o.callback();
    });
  }
}

beforeEach(() => vi.stubGlobal('ResizeObserver', FakeResizeObserver));
afterEach(() => {
  vi.unstubAllGlobals();
  FakeResizeObserver.live.clear();
});

/** Gives the list the sizes the browser would have laid out. */
function laidOut(el: HTMLElement, scrollHeight: number, clientHeight = 400) {
  Object.defineProperty(el, 'scrollHeight', { configurable: true, value: scrollHeight });
  Object.defineProperty(el, 'clientHeight', { configurable: true, value: clientHeight });
}

const first: DisplayMessage[] = [{ role: 'user', content: 'a' }];
const reply = (content: string): DisplayMessage[] => [...first, { role: 'assistant', content }];

function mount(messages: DisplayMessage[]) {
  const { container, rerender } = render(<MessageList messages={messages} generating />);
  const list = container.querySelector('.message-list') as HTMLElement;
  return {
    list,
    update: (m: DisplayMessage[]) => rerender(<MessageList messages={m} generating />),
  };
}

describe('MessageList scrolling', () => {
  it('auto-scrolls only when the user is within 120 px of the bottom', () => {
    const { list, update } = mount(first);
    laidOut(list, 1000);
    FakeResizeObserver.layout();
    // Near the bottom (100 px away): follows new content.
    list.scrollTop = 500;
    update(reply('b'));
    laidOut(list, 1200);
    FakeResizeObserver.layout();
    expect(list.scrollTop).toBe(1200);
    // Scrolled up (more than 120 px away): stays put.
    list.scrollTop = 200;
    update(reply('bc'));
    laidOut(list, 1500);
    FakeResizeObserver.layout();
    expect(list.scrollTop).toBe(200);
  });

  it('scrolls after the layout, not in the update', () => {
    const { list, update } = mount(first);
    laidOut(list, 1000);
    FakeResizeObserver.layout();
    expect(list.scrollTop).toBe(1000);
    update(reply('b'));
    laidOut(list, 1100);
    // The update alone reads no layout and moves nothing; the browser's layout then does.
    expect(list.scrollTop).toBe(1000);
    FakeResizeObserver.layout();
    expect(list.scrollTop).toBe(1100);
  });

  // Broke once (judged by a scroll handler against the height after the update): a block taller
  // than 120 px arriving at the end stopped the following mid-reply.
  it('a tall block at the end is followed: judged by the end the user saw', () => {
    const { list, update } = mount(first);
    laidOut(list, 1000);
    FakeResizeObserver.layout();
    update(reply('a tall code block'));
    laidOut(list, 1600);
    FakeResizeObserver.layout();
    expect(list.scrollTop).toBe(1600);
  });

  it('follows the content of a list that was empty, and stops observing when unmounted', () => {
    const { container, rerender, unmount } = render(
      <MessageList messages={[]} generating={false} />,
    );
    const list = container.querySelector('.message-list') as HTMLElement;
    rerender(<MessageList messages={first} generating={false} />);
    const [observer] = FakeResizeObserver.live;
    expect(FakeResizeObserver.live.size).toBe(1);
    expect(observer?.targets).toEqual(new Set([list.querySelector('.messages')]));
    unmount();
    expect(FakeResizeObserver.live.size).toBe(0);
  });
});
