import { describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createUpdateTracker, type WorkerLike } from '../service-worker/updates';
import { UpdatePrompt } from './UpdatePrompt';

/** A fake ServiceWorker, registration and container built on EventTarget. */
function fakes(controlled: boolean) {
  const worker = Object.assign(new EventTarget(), {
    state: 'installing',
    postMessage: vi.fn(),
  }) as EventTarget & WorkerLike & { postMessage: ReturnType<typeof vi.fn> };
  const registration = Object.assign(new EventTarget(), {
    waiting: null as WorkerLike | null,
    installing: null as WorkerLike | null,
  });
  const container = Object.assign(new EventTarget(), { controller: controlled ? {} : null });
  const install = () => {
    registration.installing = worker;
    registration.dispatchEvent(new Event('updatefound'));
    worker.state = 'installed';
    worker.dispatchEvent(new Event('statechange'));
  };
  return { worker, registration, container, install };
}

describe('UpdatePrompt', () => {
  it('shows nothing until a new service worker waits, then Reload hands over and reloads', async () => {
    const { worker, registration, container, install } = fakes(true);
    const tracker = createUpdateTracker();
    const reload = vi.fn();
    tracker.watch(container, registration, reload);
    render(<UpdatePrompt updates={tracker} />);
    expect(screen.getByRole('status')).toBeEmptyDOMElement();

    act(() => install());
    expect(screen.getByRole('status')).toHaveTextContent('A new version is available');
    await userEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(worker.postMessage).toHaveBeenCalledWith({ type: 'skip-waiting' });
    expect(reload).not.toHaveBeenCalled();

    container.dispatchEvent(new Event('controllerchange'));
    container.dispatchEvent(new Event('controllerchange'));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('offers a worker that was already waiting when the page loaded', () => {
    const { worker, registration, container } = fakes(true);
    registration.waiting = worker;
    const tracker = createUpdateTracker();
    tracker.watch(container, registration, vi.fn());
    render(<UpdatePrompt updates={tracker} />);
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
  });

  it('the first install (no controller yet) prompts nothing and its claim does not reload', () => {
    // Regression guard: clients.claim() on the first visit fires controllerchange; reloading
    // then would throw away whatever the user had started.
    const { registration, container, install } = fakes(false);
    const tracker = createUpdateTracker();
    const reload = vi.fn();
    tracker.watch(container, registration, reload);
    render(<UpdatePrompt updates={tracker} />);
    act(() => install());
    container.dispatchEvent(new Event('controllerchange'));
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
    expect(reload).not.toHaveBeenCalled();
  });
});
