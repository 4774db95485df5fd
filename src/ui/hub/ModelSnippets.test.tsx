import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setupServer } from 'msw/node';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { HUB_MOCK_IDS, hubHandlers } from '../../../mocks/hub-handlers';
import { MODELS } from '../../shared/models';
import { MAX_RECORD_CHARS } from '../../hub/parse-model-record';
import HubView from './HubView';

const server = setupServer(...hubHandlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** Opens the hub on its snippets tab (the catalogue, a large tree, stays unmounted). */
function setup(props: Parameters<typeof HubView>[0] = {}) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider
      client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}
    >
      <HubView initialTab="snippets" {...props} />
    </QueryClientProvider>,
  );
  return user;
}

async function openSnippets(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('tab', { name: 'Model snippets' }));
  expect(screen.getByRole('tab', { name: 'Tasks' })).toHaveAttribute('aria-selected', 'false');
}

async function fetchId(user: ReturnType<typeof userEvent.setup>, id: string) {
  const field = screen.getByRole('textbox', { name: 'Model id' });
  await user.clear(field);
  await user.type(field, id);
  await user.click(screen.getByRole('button', { name: 'Fetch from the Hub' }));
}

async function pasteRecord(user: ReturnType<typeof userEvent.setup>, json: string) {
  const field = screen.getByRole('textbox', { name: /Or paste a model record/ });
  fireEvent.change(field, { target: { value: json } });
  await user.click(screen.getByRole('button', { name: 'Use pasted record' }));
}

describe('Model snippets view', { timeout: 15_000 }, () => {
  it('fetches a record; library and inference snippets per language, each copyable', async () => {
    const user = setup();
    await openSnippets(user);
    await fetchId(user, HUB_MOCK_IDS.found);
    expect(
      await screen.findByRole('heading', { level: 2, name: HUB_MOCK_IDS.found }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('heading', { name: 'Library snippets: Transformers' }),
    ).toBeInTheDocument();
    expect(
      screen.getAllByText(/AutoModelForSequenceClassification\.from_pretrained/).length,
    ).toBeGreaterThan(0);
    const tabs = within(
      screen.getByRole('tablist', { name: 'Inference snippet language' }),
    ).getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['JavaScript', 'Python', 'Shell']);
    await user.click(screen.getByRole('tab', { name: 'Shell' }));
    const shell = screen.getByRole('tabpanel', { name: 'Shell' });
    const code = within(shell).getByText(/^curl /).textContent ?? '';
    expect(code).toContain(
      'https://router.huggingface.co/hf-inference/models/mock/text-classifier',
    );
    await user.click(within(shell).getByRole('button', { name: 'Copy Shell (curl)' }));
    expect(await navigator.clipboard.readText()).toBe(code);
    expect(within(shell).getByRole('status')).toHaveTextContent('Copied to the clipboard.');
  });

  it.each([
    [
      HUB_MOCK_IDS.notFound,
      'Model "mock/not-found" was not found on the Hub (404). Check the id; private and gated models are not listed.',
    ],
    [HUB_MOCK_IDS.rateLimited, 'The Hub is rate limiting requests (429). Try again in 30 s.'],
    [HUB_MOCK_IDS.malformed, "The Hub's answer was not valid JSON."],
    [
      HUB_MOCK_IDS.networkDown,
      'Could not reach the Hub (network error). Check the connection, or paste the model record as JSON.',
    ],
    [
      'not a/valid/id',
      '"not a/valid/id" is not a model id. A model id looks like "owner/name", e.g. "onnx-community/gemma-2-2b-jpn-it".',
    ],
  ])('%s: a clear message, and the rest of the view still works', async (id, message) => {
    const user = setup();
    await openSnippets(user);
    await fetchId(user, id);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    await pasteRecord(user, JSON.stringify({ id: 'acme/peft', library_name: 'peft' }));
    expect(await screen.findByText('Task type is invalid.')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'GGUF' }));
    expect(screen.getByText(/^Quantization: Q4_K_M/)).toBeInTheDocument();
  });

  it('wrong-typed fields are listed, the snippets still shown', async () => {
    const user = setup();
    await openSnippets(user);
    await fetchId(user, HUB_MOCK_IDS.wrongTypes);
    const issues = await screen.findByText(
      'Some fields of this record were unusable and are ignored:',
    );
    expect(issues.parentElement).toHaveTextContent(
      'config.peft.task_type should be a string, got a number; ignored.',
    );
    expect(screen.getByText('Task type is invalid.')).toBeInTheDocument();
  });

  it('pasted records: messages in place of snippets, exact text', async () => {
    const user = setup();
    await openSnippets(user);
    await pasteRecord(user, JSON.stringify({ id: 'acme/sb', library_name: 'speechbrain' }));
    expect(await screen.findByText('interface not specified in config.json')).toBeInTheDocument();
    expect(
      screen.getByText('No input example has been defined for this model task.'),
    ).toBeInTheDocument();
    await pasteRecord(user, JSON.stringify({ id: 'acme/tjs', library_name: 'transformers.js' }));
    expect(await screen.findByText('Unknown pipeline tag')).toBeInTheDocument();
  });

  it('invalid JSON and a huge paste: a message at the field', async () => {
    const user = setup();
    await openSnippets(user);
    await pasteRecord(user, '{"id": ');
    expect(screen.getByRole('alert')).toHaveTextContent(/^This is not valid JSON: /);
    expect(screen.getByRole('textbox', { name: /Or paste a model record/ })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await pasteRecord(user, `{"id":"a/b","x":"${'x'.repeat(MAX_RECORD_CHARS)}"}`);
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The record is 2.0 MB; the limit is 2.0 MB.',
    );
  });

  it('conversational models: streaming toggle and provider choice change the snippet', async () => {
    const user = setup();
    await openSnippets(user);
    await pasteRecord(
      user,
      JSON.stringify({
        id: 'acme/chat',
        pipeline_tag: 'text-generation',
        tags: ['conversational'],
      }),
    );
    await user.click(await screen.findByRole('tab', { name: 'Shell' }));
    const curl = () =>
      within(screen.getByRole('tabpanel', { name: 'Shell' })).getByText(/^curl /).textContent;
    expect(curl()).toContain('"stream": false');
    await user.click(screen.getByRole('checkbox', { name: 'Stream the response' }));
    expect(curl()).toContain('"stream": true');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Provider' }), 'together');
    expect(curl()).toContain('"model": "acme/chat:together"');
  });

  it('the in-browser models are one click away and offer "Load in chat"', async () => {
    const onLoadInChat = vi.fn();
    const user = setup({ onLoadInChat });
    await openSnippets(user);
    const model = MODELS[0];
    if (!model) throw new Error('no models');
    await user.click(screen.getByRole('button', { name: model.label }));
    expect(screen.getByRole('heading', { level: 2, name: model.id })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Model id' })).toHaveValue(model.id);
    await user.click(screen.getByRole('button', { name: 'Load in chat' }));
    expect(onLoadInChat).toHaveBeenCalledWith(model.id);
  });

  it('no "Load in chat" for other models', async () => {
    const user = setup({ onLoadInChat: vi.fn() });
    await openSnippets(user);
    await fetchId(user, HUB_MOCK_IDS.found);
    await screen.findByRole('heading', { level: 2, name: HUB_MOCK_IDS.found });
    expect(screen.queryByRole('button', { name: 'Load in chat' })).not.toBeInTheDocument();
  });

  // Regression: an old "Could not reach the Hub" stayed on screen under a new attempt's error.
  it('a new attempt clears an old "Could not reach the Hub" error', async () => {
    const user = setup();
    await fetchId(user, HUB_MOCK_IDS.networkDown);
    expect(await screen.findByText(/Could not reach the Hub/)).toBeInTheDocument();
    await pasteRecord(user, '{not json');
    expect(screen.queryByText(/Could not reach the Hub/)).not.toBeInTheDocument();
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    await fetchId(user, HUB_MOCK_IDS.notFound);
    await screen.findByText(/not found|404/i);
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });

  // Regression: after a paste the model-id field still showed the previously fetched id.
  it('after a paste the model-id field shows the pasted record id', async () => {
    const user = setup();
    await fetchId(user, HUB_MOCK_IDS.found);
    await screen.findByRole('heading', { level: 2, name: HUB_MOCK_IDS.found });
    await pasteRecord(
      user,
      JSON.stringify({ id: 'pasted/model', pipeline_tag: 'text-generation', tags: [] }),
    );
    expect(
      await screen.findByRole('heading', { level: 2, name: 'pasted/model' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Model id' })).toHaveValue('pasted/model');
  });
});
