import { afterEach, describe, expect, it } from 'vitest';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createActor, type AnyActorRef } from 'xstate';
import { chatMachine } from '../../machines/chatMachine';
import { fakeWorker } from '../../machines/test-helpers';
import { inspect } from '../../inspection/bus';
import InspectorPanel from './InspectorPanel';

const started: AnyActorRef[] = [];
afterEach(() => {
  for (const actor of started.splice(0)) actor.stop();
});

function startChat() {
  const worker = fakeWorker();
  const chat = createActor(chatMachine, { input: { worker }, inspect, id: 'chat' });
  chat.start();
  started.push(chat);
  return { chat, worker };
}

const stateGroup = (id: string) => document.querySelector<SVGGElement>(`g[data-state="${id}"]`);

async function expectActive(id: string) {
  await waitFor(() => expect(stateGroup(id)?.dataset.active).toBe('true'), { timeout: 5000 });
}

describe('InspectorPanel', { timeout: 30_000 }, () => {
  it('highlights the active state of a real chat actor as events arrive', async () => {
    const { chat, worker } = startChat();
    render(<InspectorPanel onClose={() => {}} />);

    const tree = screen.getByRole('tree', { name: 'Actors' });
    expect(within(tree).getByRole('treeitem', { selected: true })).toHaveTextContent('chat');
    await expectActive('chat.unavailable');
    expect(stateGroup('chat.replying.generating')?.dataset.active).toBe('false');

    act(() => {
      chat.send({ type: 'worker.ready', message: { status: 'ready' } });
      chat.send({ type: 'chat.send', text: 'Hello' });
    });
    await expectActive('chat.replying.generating');
    expect(stateGroup('chat.replying')?.dataset.active).toBe('true');
    expect(stateGroup('chat.unavailable')?.dataset.active).toBe('false');
    expect(stateGroup('chat.idle')?.dataset.active).toBe('false');
    expect(worker.posted.map((r) => r.type)).toEqual(['generate']);

    // 300 tokens: one collapsed row with a count, not 300 rows — a heartbeat in the middle too.
    act(() => {
      chat.send({ type: 'worker.start', message: { status: 'start' } });
      for (let i = 0; i < 300; i += 1) {
        if (i === 150) chat.send({ type: 'worker.alive', message: { status: 'alive' } });
        chat.send({
          type: 'worker.update',
          message: { status: 'update', output: 'x', numTokens: i + 1, channel: 'answer' },
        });
      }
    });
    await waitFor(() => expect(screen.getByText('×300')).toBeInTheDocument());
    const log = screen.getByRole('region', { name: 'Event log' });
    expect(within(log).getAllByText('worker.update')).toHaveLength(1);
    const sendRow = log.querySelector('tr[data-event="chat.send"]');
    expect(sendRow).toHaveTextContent('generating');
    expect(sendRow).toHaveTextContent('text: "Hello"');

    act(() => {
      chat.send({
        type: 'worker.complete',
        message: { status: 'complete', numTokens: 300, seconds: 1, interrupted: false },
      });
    });
    await expectActive('chat.idle');
    expect(stateGroup('chat.replying.generating')?.dataset.active).toBe('false');
    expect(screen.getByText(/^State:/)).toHaveTextContent('State: idle');

    // The context shows the conversation, long strings truncated.
    const context = screen.getByRole('tree', { name: 'Context' });
    await userEvent.click(within(context).getByRole('button', { name: 'messages: Array(2)' }));
    await userEvent.click(within(context).getByRole('button', { name: '1: {3}' }));
    expect(within(context).getByText(/^"x{120}… \(300 chars\)"$/)).toBeInTheDocument();
  });

  it('filters the log and closes with Escape', async () => {
    const { chat } = startChat();
    let closed = 0;
    render(<InspectorPanel onClose={() => (closed += 1)} />);
    act(() => {
      chat.send({ type: 'chat.input', text: 'a' });
      chat.send({ type: 'chat.input', text: 'ab' });
      chat.send({ type: 'worker.ready', message: { status: 'ready' } });
    });
    const log = screen.getByRole('region', { name: 'Event log' });
    await waitFor(() => expect(within(log).getByText('×2')).toBeInTheDocument());
    await userEvent.type(within(log).getByRole('searchbox'), 'ready');
    expect(within(log).queryByText('chat.input')).not.toBeInTheDocument();
    expect(within(log).getByText('worker.ready')).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(closed).toBe(1);
  });

  it('selects actors with the keyboard and follows actor-ref links in the context', async () => {
    const { chat } = startChat();
    // Any actor ref in a context is shown as a link: here the chat actor stands in as a worker.
    const worker = chat as unknown as ReturnType<typeof fakeWorker>;
    const other = createActor(chatMachine, { input: { worker }, inspect, id: 'other' });
    started.push(other.start());
    render(<InspectorPanel onClose={() => {}} />);
    const tree = screen.getByRole('tree', { name: 'Actors' });
    const first = within(tree).getByRole('treeitem', { selected: true });
    expect(first).toHaveTextContent(/^chat/);
    first.focus();
    await userEvent.keyboard('{ArrowDown}');
    const second = within(tree).getByRole('treeitem', { selected: true });
    expect(second).toHaveTextContent(/^other/);
    expect(second).toHaveFocus();
    // 'other' holds the chat actor in its context (as its worker): the link selects it.
    const context = screen.getByRole('tree', { name: 'Context' });
    await userEvent.click(within(context).getByRole('button', { name: '@chat' }));
    expect(within(tree).getByRole('treeitem', { selected: true })).toHaveTextContent(/^chat/);
  });
});
