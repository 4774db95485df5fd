import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StoredModelsView, type StoredModelsViewProps } from './StoredModelsView';

function setup(overrides: Partial<StoredModelsViewProps> = {}) {
  const props: StoredModelsViewProps = {
    models: [
      { id: 'local/one', bytes: 622_592, files: 6, hosts: [] },
      { id: 'local/two', bytes: 1536, files: 1, hosts: [] },
    ],
    estimate: { usage: 2 * 1024 * 1024, quota: 10 * 1024 * 1024 * 1024 },
    persisted: false,
    loadedId: 'local/one',
    busy: false,
    error: null,
    onDelete: vi.fn(),
    onPersist: vi.fn(),
    onRefresh: vi.fn(),
    ...overrides,
  };
  render(<StoredModelsView {...props} />);
  return { props, user: userEvent.setup() };
}

describe('StoredModelsView', () => {
  it('lists each model with its size in 1024 units, and the storage used and available', () => {
    setup();
    expect(screen.getByRole('rowheader', { name: /local\/one/ })).toBeInTheDocument();
    expect(screen.getByText('608.00kB')).toBeInTheDocument();
    expect(screen.getByText('1.50kB')).toBeInTheDocument();
    expect(screen.getByText(/Storage used: 2.00MB of 10.00GB/)).toBeInTheDocument();
  });

  it('a Delete button per model named after it, and the persist option', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Delete local/two' }));
    expect(props.onDelete).toHaveBeenCalledWith('local/two');
    await user.click(screen.getByRole('button', { name: 'Keep stored data' }));
    expect(props.onPersist).toHaveBeenCalled();
  });

  it('shows an error in the page', () => {
    setup({ error: 'local/one is the loaded model: load another model before deleting it.' });
    expect(screen.getByRole('alert')).toHaveTextContent('local/one is the loaded model');
  });

  it('says when nothing is stored', () => {
    setup({ models: [], persisted: true });
    expect(screen.getByText('No model files are stored in this browser.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Keep stored data' })).toBeNull();
  });
});
