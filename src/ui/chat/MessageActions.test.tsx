import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MessageList } from './MessageList';
import type { ChatEvent, DisplayMessage } from '../../machines/chatMachine';

vi.mock('../markdown/AssistantMarkdown', () => ({
  AssistantMarkdown: ({ content }: { content: string }) => <div data-testid="md">{content}</div>,
}));

const regenerated: DisplayMessage[] = [
  { role: 'user', content: 'Question' },
  {
    role: 'assistant',
    content: '**Second** answer',
    version: 1,
    alternatives: [
      [{ role: 'assistant', content: 'First' }],
      [{ role: 'assistant', content: 'Third' }],
    ],
  },
];

function list(messages: DisplayMessage[], generating = false, ready = true) {
  const sent: ChatEvent[] = [];
  const send = (event: ChatEvent) => void sent.push(event);
  const view = render(
    <MessageList messages={messages} generating={generating} ready={ready} send={send} />,
  );
  return { sent, view };
}

const items = () => screen.getAllByRole('listitem');

describe('message actions', () => {
  it('with no model ready (after a reload): Copy works, Regenerate, Edit and the pager are disabled', async () => {
    const user = userEvent.setup();
    const { sent } = list(regenerated, false, false);
    const reply = items()[1]!;
    expect(await within(reply).findByRole('button', { name: 'Regenerate' })).toBeDisabled();
    expect(within(reply).getByRole('button', { name: 'Previous version' })).toBeDisabled();
    expect(within(items()[0]!).getByRole('button', { name: 'Edit and resend' })).toBeDisabled();
    await user.click(within(reply).getByRole('button', { name: 'Copy message' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('**Second** answer');
    expect(sent).toEqual([]);
  });

  it('Copy puts the message’s Markdown on the clipboard and says "Copied"', async () => {
    const user = userEvent.setup();
    list(regenerated);
    const reply = items()[1]!;
    await user.click(await within(reply).findByRole('button', { name: 'Copy message' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('**Second** answer');
    expect(within(reply).getByText('Copied')).toBeInTheDocument();
  });

  it('the pager shows "2 / 3" and asks for the previous and next versions', async () => {
    const user = userEvent.setup();
    const { sent } = list(regenerated);
    const reply = items()[1]!;
    expect(await within(reply).findByText('2 / 3')).toBeInTheDocument();
    await user.click(within(reply).getByRole('button', { name: 'Previous version' }));
    await user.click(within(reply).getByRole('button', { name: 'Next version' }));
    expect(sent).toEqual([
      { type: 'chat.version', index: 1, version: 0 },
      { type: 'chat.version', index: 1, version: 2 },
    ]);
  });

  // The digits are of one width (message-actions.css: tabular-nums); the index is padded to the
  // count's digits with figure spaces, as wide as a digit.
  it('the pager keeps one width while paging: "\u20073 / 12" and "12 / 12"', async () => {
    const twelve = (version: number): DisplayMessage[] => [
      { role: 'user', content: 'Question' },
      {
        role: 'assistant',
        content: `answer ${version + 1}`,
        version,
        alternatives: Array.from({ length: 11 }, (_, i) => [
          { role: 'assistant' as const, content: `other ${i}` },
        ]),
      },
    ];
    const counts: string[] = [];
    for (const version of [2, 11]) {
      const { view } = list(twelve(version));
      const count = await within(items()[1]!).findByText(/ \/ 12$/);
      counts.push(count.textContent ?? '');
      view.unmount();
    }
    // Regression: "3 / 12" was narrower than "12 / 12", so Next moved as the number grew.
    expect(counts).toEqual(['\u20073 / 12', '12 / 12']);
  });

  it('Regenerate on the last reply; Continue only on a reply cut at the limit', async () => {
    const user = userEvent.setup();
    const { sent, view } = list(regenerated);
    await user.click(await screen.findByRole('button', { name: 'Regenerate' }));
    expect(sent).toEqual([{ type: 'chat.regenerate' }]);
    // A reply that ended normally is not continued.
    expect(screen.queryByRole('button', { name: 'Continue' })).not.toBeInTheDocument();
    view.unmount();
    const cut = list([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Once', ended: { by: 'limit', limit: 4 } },
    ]);
    await user.click(await screen.findByRole('button', { name: 'Continue' }));
    expect(cut.sent).toEqual([{ type: 'chat.continue' }]);
  });

  it('Edit opens the text; Send asks for the branch, Escape leaves it', async () => {
    const user = userEvent.setup();
    const { sent } = list(regenerated);
    await user.click(await screen.findByRole('button', { name: 'Edit and resend' }));
    const box = screen.getByRole('textbox', { name: 'Edit message' });
    expect(box).toHaveFocus();
    await user.clear(box);
    await user.type(box, 'Better question');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(sent).toEqual([{ type: 'chat.edit', index: 0, text: 'Better question' }]);
    await user.click(screen.getByRole('button', { name: 'Edit and resend' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Edit message' })).not.toBeInTheDocument();
  });

  it('while a reply streams: Edit, Regenerate and the pager are disabled, Copy is not', async () => {
    list(
      [...regenerated, { role: 'user', content: 'Next' }, { role: 'assistant', content: 'Stre' }],
      true,
    );
    const [question, reply, next, streaming] = items();
    expect(
      await within(question!).findByRole('button', { name: 'Edit and resend' }),
    ).toBeDisabled();
    expect(within(reply!).getByRole('button', { name: 'Previous version' })).toBeDisabled();
    expect(within(next!).getByRole('button', { name: 'Copy message' })).toBeEnabled();
    // The reply being written has no buttons yet.
    expect(within(streaming!).queryByRole('button')).not.toBeInTheDocument();
  });

  it('keyboard: Tab reaches each message’s buttons in reading order', async () => {
    const user = userEvent.setup();
    list(regenerated);
    await screen.findByRole('button', { name: 'Regenerate' });
    const [question, reply] = items();
    const expected = [
      within(question!).getByRole('button', { name: 'Copy message' }),
      within(question!).getByRole('button', { name: 'Edit and resend' }),
      within(reply!).getByRole('button', { name: 'Previous version' }),
      within(reply!).getByRole('button', { name: 'Next version' }),
      within(reply!).getByRole('button', { name: 'Copy message' }),
      within(reply!).getByRole('button', { name: 'Regenerate' }),
    ];
    for (const button of expected) {
      await user.tab();
      expect(button).toHaveFocus();
    }
  });
});
