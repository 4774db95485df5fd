import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConversationsNav, type ConversationsNavProps } from './ConversationsNav';
import { defaultSettings } from '../../shared/generation-settings';
import type { Conversation } from '../../shared/conversations/types';

// jsdom's File has no text(); browsers do.
if (!('text' in File.prototype))
  Object.defineProperty(File.prototype, 'text', {
    value(this: File) {
      return new Promise<string>((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result as string);
        reader.readAsText(this);
      });
    },
  });

const current: Conversation = {
  id: 'b',
  createdAt: 1,
  updatedAt: 2,
  modelId: 'local/tiny',
  settings: defaultSettings(),
  messages: [
    { role: 'user', content: 'Second question' },
    { role: 'assistant', content: 'Answer' },
  ],
};

function setup(overrides: Partial<ConversationsNavProps> = {}) {
  const props: ConversationsNavProps = {
    list: [
      { id: 'b', title: 'Second question', updatedAt: 2 },
      { id: 'a', title: 'First question', updatedAt: 1 },
    ],
    current,
    storageError: null,
    importError: null,
    onNew: vi.fn(),
    onSelect: vi.fn(),
    onDelete: vi.fn(),
    onRename: vi.fn(),
    onImport: vi.fn(),
    onDismissError: vi.fn(),
    ...overrides,
  };
  render(<ConversationsNav {...props} />);
  return { props, user: userEvent.setup() };
}

describe('ConversationsNav', () => {
  it('a region named Conversations with New chat and one entry each, the current one marked', async () => {
    const { props, user } = setup();
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    expect(within(nav).getByRole('button', { name: 'Second question' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(nav).getByRole('button', { name: 'First question' })).not.toHaveAttribute(
      'aria-current',
    );
    await user.click(screen.getByRole('button', { name: 'First question' }));
    expect(props.onSelect).toHaveBeenCalledWith('a');
    await user.click(screen.getByRole('button', { name: 'New chat' }));
    expect(props.onNew).toHaveBeenCalled();
  });

  it('Delete asks first; Keep it cancels, Delete conversation deletes', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Delete First question' }));
    expect(props.onDelete).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Keep it' }));
    expect(screen.queryByRole('button', { name: 'Delete conversation' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Delete First question' }));
    await user.click(screen.getByRole('button', { name: 'Delete conversation' }));
    expect(props.onDelete).toHaveBeenCalledWith('a');
  });

  it('rename: an empty name is refused in the page, a valid one is sent', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Rename First question' }));
    const box = screen.getByRole('textbox', { name: 'Name' });
    await user.clear(box);
    await user.click(screen.getByRole('button', { name: 'Save name' }));
    expect(screen.getByRole('alert')).toHaveTextContent('A conversation name cannot be empty.');
    expect(props.onRename).not.toHaveBeenCalled();
    await user.type(box, 'Renamed{Enter}');
    expect(props.onRename).toHaveBeenCalledWith('a', 'Renamed');
  });

  it('import reads the chosen file; an oversized file is not read', async () => {
    const { props, user } = setup();
    const input = screen.getByLabelText('Import conversation');
    await user.upload(input, new File(['{"x":1}'], 'c.json', { type: 'application/json' }));
    await vi.waitFor(() => expect(props.onImport).toHaveBeenCalledWith('{"x":1}', 7));
    const big = new File(['x'], 'big.json', { type: 'application/json' });
    Object.defineProperty(big, 'size', { value: 6 * 1024 * 1024 });
    const text = vi.spyOn(big, 'text');
    await user.upload(input, big);
    await vi.waitFor(() => expect(props.onImport).toHaveBeenLastCalledWith('', 6 * 1024 * 1024));
    expect(text).not.toHaveBeenCalled();
  });

  it('shows import and storage errors with role="alert"', () => {
    setup({
      importError: 'This is not a conversation file: it is not valid JSON.',
      storageError: 'Browser storage is full.',
    });
    const alerts = screen.getAllByRole('alert').map((a) => a.textContent);
    expect(alerts.join(' ')).toContain('not valid JSON');
    expect(alerts.join(' ')).toContain('Browser storage is full.');
  });

  it('export downloads JSON and Markdown through a link', async () => {
    const { user } = setup();
    const created = vi.fn(() => 'blob:x');
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() });
    const clicks: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicks.push(this.download);
    });
    await user.click(screen.getByRole('button', { name: 'Export JSON' }));
    await user.click(screen.getByRole('button', { name: 'Export Markdown' }));
    expect(clicks).toEqual(['second-question.json', 'second-question.md']);
    click.mockRestore();
  });
});
