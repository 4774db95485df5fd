/**
 * The panel's Hub parts against the mock service: the Hub token (sent with the start only, kept
 * nowhere), the note beside a gated base with its ungated alternative, and "Downloaded base
 * models" (the service's Hub cache: sizes, Remove with a confirm, refused while in use).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_BASE_MODEL } from '../../shared/training-api';
import { renderPanel, serveTrainingMock } from '../../../tests/component/training-panel';

vi.mock('uplot', () => import('../../../tests/component/uplot-stub'));

const { mock } = serveTrainingMock({ stepsPerPoll: 40 });
// The section's chunk (and TanStack Query's) loaded once, not inside a test's wait.
beforeAll(async () => {
  await Promise.all([import('./HubCache'), import('../query-client')]);
});
const findSection = () =>
  screen.findByRole('region', { name: 'Downloaded base models' }, { timeout: 10_000 });

const TOKEN = 'hf_componentTest_91b2';
const trainButton = () => screen.getByRole('button', { name: /Train Model|Training\.\.\./ });

describe('TrainingPanel: the Hub token', () => {
  it('is a password field whose value goes with the start only, never into storage or the plan', async () => {
    const user = userEvent.setup();
    renderPanel();
    const field = screen.getByLabelText('Hub token (optional)');
    expect(field).toHaveAttribute('type', 'password');
    expect(field).toHaveAttribute('autocomplete', 'off');
    expect(field).toHaveAccessibleDescription(
      /Kept only in this tab's memory and sent only to the local training service/,
    );
    await user.type(field, TOKEN);
    // The plan is asked with the form as it stands: without the token.
    await waitFor(
      () => expect(mock.requests.some((r) => r.startsWith('POST /train/plan'))).toBe(true),
      {
        timeout: 5000,
      },
    );
    await user.click(trainButton());
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]).toMatchObject({ hub_token: TOKEN });
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? '';
      expect(localStorage.getItem(key) ?? '').not.toContain(TOKEN);
    }
  }, 20_000);

  it('a token that is not one: the start is refused in the panel, naming the field, not echoing it', async () => {
    const user = userEvent.setup();
    renderPanel();
    await user.type(screen.getByLabelText('Hub token (optional)'), 'my password');
    await user.click(trainButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('hub_token must be a Hub access token: hf_');
    expect(alert).not.toHaveTextContent('my password');
    expect(mock.starts).toHaveLength(0);
  });

  it('without a token, the start carries none', async () => {
    const user = userEvent.setup();
    renderPanel();
    await user.click(trainButton());
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]).not.toHaveProperty('hub_token');
  });
});

describe('TrainingPanel: a gated default', () => {
  it('says the default is gated, links its page, and offers the ungated 3B alternative', async () => {
    const user = userEvent.setup();
    renderPanel();
    const note = screen.getByText(/is gated on the Hub/);
    expect(note).toHaveTextContent(
      `${DEFAULT_BASE_MODEL} is gated on the Hub: accept its licence on its page (signed in) and give a Hub token below. Not gated, the same size: use Qwen/Qwen2.5-3B-Instruct.`,
    );
    expect(within(note).getByRole('link', { name: 'its page' })).toHaveAttribute(
      'href',
      `https://huggingface.co/${DEFAULT_BASE_MODEL}`,
    );
    await user.click(within(note).getByRole('button', { name: 'use Qwen/Qwen2.5-3B-Instruct' }));
    expect(screen.getByLabelText('Base model')).toHaveValue('Qwen/Qwen2.5-3B-Instruct');
    expect(screen.queryByText(/is gated on the Hub/)).not.toBeInTheDocument();
  });
});

describe('TrainingPanel: downloaded base models', () => {
  const held = [
    { id: 'Qwen/Qwen2.5-3B-Instruct', bytes: 6_174_015_488, revisions: 1 },
    { id: 'org/tiny', bytes: 1536, revisions: 2 },
  ];

  it('lists the cache folder, its size and each model; the Base model field marks them downloaded', async () => {
    mock.hubCache.hold(held);
    renderPanel();
    const section = await findSection();
    expect(section).toHaveTextContent(/hub-cache on the training service: 5\.75GB/);
    const rows = within(section).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      'Qwen/Qwen2.5-3B-Instruct 5.75GB Remove',
      'org/tiny 1.50kB, 2 revisions Remove',
    ]);
    const input = screen.getByLabelText('Base model');
    const list = document.getElementById(input.getAttribute('list') ?? '');
    const options = [...(list?.querySelectorAll('option') ?? [])];
    expect(options.find((o) => o.value === 'org/tiny')?.textContent).toBe(
      'on the training service (downloaded)',
    );
    expect(options.find((o) => o.value === 'Qwen/Qwen2.5-3B-Instruct')?.textContent).toBe(
      '3B, instruct, not gated on the Hub (downloaded)',
    );
  });

  it('Remove asks first; Keep keeps it, Yes removes it (DELETE) and the list follows', async () => {
    mock.hubCache.hold(held);
    const user = userEvent.setup();
    renderPanel();
    const section = await findSection();
    await user.click(within(section).getByRole('button', { name: 'Remove org/tiny' }));
    await user.click(within(section).getByRole('button', { name: 'Keep' }));
    expect(mock.requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);
    await user.click(within(section).getByRole('button', { name: 'Remove org/tiny' }));
    expect(within(section).getByRole('group', { name: 'Remove org/tiny?' })).toHaveTextContent(
      'Remove org/tiny (1.50kB)?',
    );
    await user.click(within(section).getByRole('button', { name: 'Yes, remove' }));
    await waitFor(() => expect(within(section).getAllByRole('listitem')).toHaveLength(1));
    expect(mock.requests).toContain('DELETE /hub-cache/models/org/tiny');
    expect(section).toHaveTextContent('5.75GB');
  });

  it('the base of a run started meanwhile: its removal is refused with the service text, then shown in use', async () => {
    mock.hubCache.hold([...held, { id: DEFAULT_BASE_MODEL, bytes: 10, revisions: 1 }]);
    // A run long enough to still be going when the removal is asked.
    localStorage.setItem('training.form.v1', JSON.stringify({ options: { max_steps: '100000' } }));
    const user = userEvent.setup();
    renderPanel();
    const section = await findSection();
    await user.click(within(section).getByRole('button', { name: `Remove ${DEFAULT_BASE_MODEL}` }));
    await user.click(trainButton());
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    await user.click(within(section).getByRole('button', { name: 'Yes, remove' }));
    expect(await within(section).findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      `${DEFAULT_BASE_MODEL} is the base model of the run going now: it can be removed from the Hub cache once that run has ended`,
    );
    const row = (
      await within(section).findByText('in use by the running run', {}, { timeout: 10_000 })
    ).closest('li');
    expect(row).toHaveTextContent(DEFAULT_BASE_MODEL);
    expect(within(section).getAllByRole('listitem')).toHaveLength(3);
  }, 20_000);
});
