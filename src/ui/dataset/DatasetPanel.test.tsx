import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { datasetScenarioHandler, type DatasetScenario } from '../../../mocks/dataset-handlers';
import { DatasetPanel, TOKEN_STORAGE_KEY, type DatasetPanelProps } from './DatasetPanel';
import { createServices } from '../../composition';
import { ServicesContext } from '../services';
import { SAMPLE_NAME, SAMPLE_TEXT } from '../../shared/dataset/sample';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const TOKEN = 'hf_componentTestToken123';
let blobs: Blob[];
beforeEach(() => {
  blobs = [];
  sessionStorage.clear();
  vi.spyOn(console, 'error').mockImplementation(() => {});
  URL.createObjectURL = vi.fn((blob: Blob) => {
    blobs.push(blob);
    return `blob:test/${blobs.length}`;
  });
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => vi.restoreAllMocks());

/** jsdom's Blob has no text(): read it the old way. */
function blobText(blob: Blob | undefined): Promise<string> {
  if (!blob) return Promise.reject(new Error('no blob was downloaded'));
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(new Error('unreadable blob'));
    reader.readAsText(blob);
  });
}

/** The page's text outside the token field itself. */
function pageWithoutTokenField(): string {
  const copy = document.body.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('input[type=password]').forEach((input) => input.remove());
  return copy.innerHTML;
}

function setup(scenario: DatasetScenario | null, props: DatasetPanelProps = {}) {
  if (scenario) server.use(datasetScenarioHandler(scenario));
  const client = new QueryClient();
  const services = createServices({
    queryClient: client,
    hosted: { backoffMs: 1, timeoutMs: 5000 },
  });
  render(
    <QueryClientProvider client={client}>
      <ServicesContext value={services}>
        <DatasetPanel {...props} />
      </ServicesContext>
    </QueryClientProvider>,
  );
  return userEvent.setup();
}

async function formatWithToken(user: ReturnType<typeof userEvent.setup>, count = 3) {
  await user.clear(screen.getByLabelText('Number of pairs'));
  await user.type(screen.getByLabelText('Number of pairs'), String(count));
  await user.type(screen.getByLabelText('Hugging Face access token'), TOKEN);
  await user.click(screen.getByRole('button', { name: 'Format Input' }));
}

// Typing into the panel re-renders it per key; on a loaded 2-core machine that passes 5 s.
describe('DatasetPanel', { timeout: 20_000 }, () => {
  it('prefills the sample; the token is a password field', () => {
    setup(null);
    expect(screen.getByLabelText('Name or title')).toHaveValue(SAMPLE_NAME);
    expect(screen.getByLabelText('Sample text')).toHaveValue(SAMPLE_TEXT);
    expect(screen.getByLabelText('Hugging Face access token')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Format Input' })).toBeEnabled();
  });

  it('Format Input → streamed pairs → table → edit and delete → download input_data.json', async () => {
    const user = setup('success');
    await formatWithToken(user);
    expect(await screen.findByText(/Generating: \d+ pairs? so far/)).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['#', 'Prompt', 'Completion', 'Actions']);
    expect(screen.getByText('3 pairs')).toBeInTheDocument();
    const prompt1 = screen.getByLabelText('Prompt 1');
    expect((prompt1 as HTMLTextAreaElement).value).toContain(SAMPLE_NAME);
    await user.clear(prompt1);
    await user.type(prompt1, 'What is the Lantern Festival?');
    await user.click(screen.getByRole('button', { name: 'Delete pair 3' }));
    expect(screen.getByText('2 pairs')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Download input_data.json' }));
    const blob = blobs.at(-1);
    expect(blob?.type).toBe('application/json');
    const data = JSON.parse(await blobText(blob)) as Array<{ prompt: string }>;
    expect(data).toHaveLength(2);
    expect(data[0]?.prompt).toBe('What is the Lantern Festival?');
    expect(Object.keys(data[0] ?? {})).toEqual(['prompt', 'completion']);
  });

  it('the review opens in its own dialog; Alt+↓/↑ move between rows; it closes and reopens', async () => {
    const user = setup('success');
    await formatWithToken(user, 3);
    const dialog = await screen.findByRole('dialog', { name: /^Review: / });
    expect(within(dialog).getByRole('table')).toBeInTheDocument();
    within(dialog).getByLabelText('Completion 1').focus();
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}');
    expect(within(dialog).getByLabelText('Completion 2')).toHaveFocus();
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}');
    expect(within(dialog).getByLabelText('Completion 1')).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Close the review' }));
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /^Review the \d+ pairs$/ }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });

  it('a row made invalid blocks the download with a reason', async () => {
    const user = setup('fenced');
    await formatWithToken(user, 2);
    await user.clear(await screen.findByLabelText('Completion 1'));
    expect(screen.getByText('empty completion')).toBeInTheDocument();
    expect(screen.getByText(/Fix or delete the 1 row marked invalid/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download input_data.json' })).toBeDisabled();
  });

  it('shows how many entries were left out and why', async () => {
    const user = setup('invalid-entries');
    await formatWithToken(user, 2);
    expect(await screen.findByText('2 pairs; 5 invalid entries left out')).toBeInTheDocument();
    await user.click(screen.getByText('Why entries were left out'));
    expect(screen.getByText(/item 3: duplicate question/)).toBeInTheDocument();
  });

  it('no token → says so, nothing sent', async () => {
    const user = setup(null);
    await user.click(screen.getByRole('button', { name: 'Format Input' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Enter a Hugging Face access token');
  });

  it('an empty sample text → says so', async () => {
    const user = setup(null);
    await user.clear(screen.getByLabelText('Sample text'));
    await user.type(screen.getByLabelText('Hugging Face access token'), TOKEN);
    await user.click(screen.getByRole('button', { name: 'Format Input' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The sample text is empty');
  });

  it.each([
    ['401', 'The access token was refused (HTTP 401).', false],
    ['402', 'no inference credits left (HTTP 402)', false],
    ['404', 'not served by any inference provider', false],
    ['429', 'Try again in 120 s.', true],
    ['503', 'gave up after 3 attempts', true],
    ['network', 'Could not reach router.huggingface.co', true],
    ['stream-early', 'The response stream ended before the model finished', true],
    ['not-json', "The model's reply is not valid JSON", true],
    ['wrong-shape', "The model's JSON does not have the expected shape", true],
    ['empty', 'The model returned an empty reply.', true],
    ['too-long', "too long for the model's context", false],
  ] as const)(
    '%s: the error is shown (Retry: %s), the token never',
    async (scenario, text, retry) => {
      const user = setup(scenario);
      await formatWithToken(user);
      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent(text);
      expect(pageWithoutTokenField()).not.toContain(TOKEN);
      expect(JSON.stringify(vi.mocked(console.error).mock.calls)).not.toContain(TOKEN);
      expect(!!screen.queryByRole('button', { name: 'Retry' })).toBe(retry);
    },
  );

  it('raw output is downloadable after a failure', async () => {
    const user = setup('not-json');
    await formatWithToken(user);
    await user.click(await screen.findByRole('button', { name: 'Download raw output' }));
    expect(blobs.at(-1)?.type).toBe('text/plain');
    expect(await blobText(blobs.at(-1))).toContain('Sure! Here are some questions');
  });

  it('Cancel stops generation; Retry continues', async () => {
    const user = setup('slow');
    await formatWithToken(user);
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Generation cancelled.');
    server.resetHandlers(datasetScenarioHandler('success'));
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });

  it('the local model option is disabled with a reason until a model is loaded', () => {
    setup(null);
    const local = screen.getByRole('radio', { name: 'Generate with the loaded local model' });
    expect(local).toBeDisabled();
    expect(local).toHaveAccessibleDescription(/Load a model first/);
  });

  it('local generation: no token asked, generateLocal gets the prompt', async () => {
    const generateLocal = vi.fn(
      async (prompt: string, _s: AbortSignal, onText: (t: string) => void) => {
        const text = JSON.stringify([
          { prompt: `About ${SAMPLE_NAME}?`, completion: 'It is a festival. It is in October.' },
        ]);
        onText(text);
        return text;
      },
    );
    const user = setup(null, { localModelReady: true, generateLocal });
    await user.click(screen.getByRole('radio', { name: 'Generate with the loaded local model' }));
    expect(screen.queryByLabelText('Hugging Face access token')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Format Input' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
    expect(generateLocal.mock.calls[0]?.[0]).toContain(SAMPLE_TEXT.slice(0, 200));
  });

  it('Use for training: shows the stored path; on failure the specific error, and keeps the dataset', async () => {
    const onUseForTraining = vi
      .fn<(entries: unknown[], name: string) => Promise<string>>()
      .mockRejectedValueOnce(new Error('The dataset name is not allowed.'))
      .mockResolvedValueOnce('datasets/port.json');
    const user = setup('success', { onUseForTraining });
    await formatWithToken(user, 2);
    await user.click(await screen.findByRole('button', { name: 'Use for training' }));
    // Regression: every failure used to read "Training service unreachable".
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The dataset name is not allowed. The dataset is kept');
    expect(alert).not.toHaveTextContent(/unreachable/i);
    expect(screen.getByRole('table')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Use for training' }));
    expect(await screen.findByText(/Stored as datasets\/port.json/)).toBeInTheDocument();
    expect(onUseForTraining).toHaveBeenLastCalledWith(expect.any(Array), SAMPLE_NAME);
    expect(onUseForTraining.mock.calls[1]?.[0]).toHaveLength(2);
  });

  it("Use for training through the real client: the service's refusal, then unreachable", async () => {
    const url = 'http://127.0.0.1:8000/datasets/:name';
    server.use(
      http.put(
        url,
        () => HttpResponse.json({ error: 'Dataset too large: 5 MB at most.' }, { status: 413 }),
        {
          once: true,
        },
      ),
    );
    const queryClient = new QueryClient();
    const services = createServices({
      queryClient,
      trainingUrl: 'http://127.0.0.1:8000',
      hosted: { backoffMs: 1, timeoutMs: 5000 },
    });
    server.use(datasetScenarioHandler('success'));
    render(
      <QueryClientProvider client={queryClient}>
        <ServicesContext value={services}>
          <DatasetPanel onUseForTraining={services.storeDataset} />
        </ServicesContext>
      </QueryClientProvider>,
    );
    const user = userEvent.setup();
    await formatWithToken(user, 2);
    await user.click(await screen.findByRole('button', { name: 'Use for training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Dataset too large: 5 MB at most. The dataset is kept',
    );
    server.use(http.put(url, () => HttpResponse.error()));
    await user.click(screen.getByRole('button', { name: 'Use for training' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/is unreachable.*npm run service/);
    expect(screen.getByRole('table')).toBeInTheDocument();
  });

  it('the token stays in memory unless remembered for the session', async () => {
    const user = setup(null);
    await user.type(screen.getByLabelText('Hugging Face access token'), TOKEN);
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'Remember for this session' }));
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe(TOKEN);
    await user.click(screen.getByRole('checkbox', { name: 'Remember for this session' }));
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
  });
});

describe('Format Input errors offer only available actions', () => {
  // Regression: errors said "or generate with the loaded local model" while none was loaded.
  it('no token, no local model: no local-model advice, a link to create a token', async () => {
    const user = setup(null, { localModelReady: false });
    await user.click(screen.getByRole('button', { name: 'Format Input' }));
    const alert = screen.getByRole('alert');
    expect(alert).not.toHaveTextContent(/local model/);
    const link = await within(alert).findByRole('link', {
      name: 'Create a token on huggingface.co',
    });
    expect(link).toHaveAttribute('href', 'https://huggingface.co/settings/tokens');
    expect(alert).toHaveTextContent(
      'Enter a Hugging Face access token to use the hosted model. Create a token on huggingface.co',
    );
    expect(alert).not.toHaveTextContent(/local model/);
  });

  it('no token with a local model loaded: the local model is offered', async () => {
    const user = setup(null, { localModelReady: true, generateLocal: vi.fn() });
    await user.click(screen.getByRole('radio', { name: /Hosted model/ }));
    await user.click(screen.getByRole('button', { name: 'Format Input' }));
    expect(screen.getByRole('alert')).toHaveTextContent('or generate with the loaded local model');
  });

  it('a refused token (401) links to where tokens are created', async () => {
    const user = setup('401');
    await formatWithToken(user);
    const alert = await screen.findByRole('alert');
    expect(await within(alert).findByRole('link')).toHaveAttribute(
      'href',
      'https://huggingface.co/settings/tokens',
    );
  });

  it('network failure without a local model: only "Check the connection."', async () => {
    const user = setup('network', { localModelReady: false });
    await formatWithToken(user);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/Check the connection\./);
    expect(alert).not.toHaveTextContent(/local model/);
  });
});
