import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import HubView from './HubView';

function setup(onClose?: () => void) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <HubView onClose={onClose} />
    </QueryClientProvider>,
  );
  return user;
}

describe('HubView', { timeout: 15_000 }, () => {
  it('three tabs with arrow-key navigation; hidden panels keep their state', async () => {
    const user = setup();
    const tasks = screen.getByRole('tab', { name: 'Tasks' });
    expect(tasks).toHaveAttribute('aria-selected', 'true');
    tasks.focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Model snippets' })).toHaveFocus();
    expect(screen.getByRole('tab', { name: 'Model snippets' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    await user.type(screen.getByRole('textbox', { name: 'Model id' }), 'a/b');
    await user.keyboard('{End}');
    await user.click(screen.getByRole('tab', { name: 'GGUF' }));
    await user.click(screen.getByRole('tab', { name: 'Model snippets' }));
    expect(screen.getByRole('textbox', { name: 'Model id' })).toHaveValue('a/b');
  });

  it('GGUF: the quantization of a file name and the two code tables', async () => {
    const user = setup();
    await user.click(screen.getByRole('tab', { name: 'GGUF' }));
    const field = screen.getByRole('textbox', { name: 'GGUF file name' });
    await user.clear(field);
    await user.type(field, 'phi-3-mini-BF16.gguf');
    expect(screen.getByText('Quantization: BF16 (file type BF16 = 32)')).toBeInTheDocument();
    expect(
      screen.getByRole('table', { name: 'File types (general.file_type)' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Tensor types (ggml_type)' })).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, 'model.gguf');
    expect(screen.getByText('No quantization type in this file name.')).toBeInTheDocument();
  });

  it('the close button calls onClose', async () => {
    const onClose = vi.fn();
    const user = setup(onClose);
    await user.click(screen.getByRole('button', { name: 'Close the hub' }));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('with a route, tabs and tasks are URLs: the hub follows the route and asks to navigate', async () => {
    const user = userEvent.setup();
    const onNavigate = vi.fn();
    const view = render(
      <QueryClientProvider client={new QueryClient()}>
        <HubView route="/hub/gguf" onNavigate={onNavigate} />
      </QueryClientProvider>,
    );
    expect(screen.getByRole('tab', { name: 'GGUF' })).toHaveAttribute('aria-selected', 'true');
    await user.click(screen.getByRole('tab', { name: 'Model snippets' }));
    expect(onNavigate).toHaveBeenLastCalledWith('#/hub/snippets');
    view.rerender(
      <QueryClientProvider client={new QueryClient()}>
        <HubView route="/hub/tasks/text-generation" onNavigate={onNavigate} />
      </QueryClientProvider>,
    );
    expect(
      await screen.findByRole('heading', { level: 3, name: 'Text Generation' }),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '← Back to the catalogue' }));
    expect(onNavigate).toHaveBeenLastCalledWith('#/hub');
  });

  it('an unknown task id in the URL says so above the catalogue', () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <HubView route="/hub/tasks/no-such-task" onNavigate={vi.fn()} />
      </QueryClientProvider>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(
      'There is no task "no-such-task" in the catalogue.',
    );
  });
});
