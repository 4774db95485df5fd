import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { ReactNode } from 'react';
import { createTrainingMock, MOCK_MESSAGES } from '../../../mocks/training-handlers';
import { createServices } from '../../composition';
import { ServicesContext } from '../services';
import { DEFAULT_TRAINING_URL } from '../../shared/training-api';
import { TrainingPanel, type TrainingPanelProps } from './TrainingPanel';

const mock = createTrainingMock({ stepsPerPoll: 40 });
const server = setupServer(...mock.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  localStorage.clear();
  mock.reset();
});
afterEach(() => {
  server.resetHandlers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

/** The panel wired as the composition root wires it, with the mock service and a short poll. */
function renderPanel(props: TrainingPanelProps = {}, { pollInterval = 15 } = {}) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const services = createServices({
    queryClient,
    trainingUrl: DEFAULT_TRAINING_URL,
    pollInterval,
  });
  const wrap = (node: ReactNode) => (
    <QueryClientProvider client={queryClient}>
      <ServicesContext value={services}>{node}</ServicesContext>
    </QueryClientProvider>
  );
  const panelProps = {
    dataFileFromDataset: 'service-data/datasets/stored.json',
    ...props,
  };
  const view = render(wrap(<TrainingPanel {...panelProps} />));
  return {
    ...view,
    rerenderWith: (next: TrainingPanelProps) =>
      view.rerender(wrap(<TrainingPanel {...props} {...next} />)),
  };
}

const trainButton = () => screen.getByRole('button', { name: /Train Model|Training\.\.\./ });

describe('TrainingPanel', () => {
  it('shows the four labelled fields with defaults and the Train Model button', () => {
    renderPanel({ dataFileFromDataset: undefined });
    expect(screen.getByLabelText('Script path')).toHaveValue('training/finetune.py');
    expect(screen.getByLabelText('Output directory')).toHaveValue('service-data/outputs/lora');
    // A fresh clone has no dataset: the field starts empty and says where one comes from.
    expect(screen.getByLabelText('Data file path')).toHaveValue('');
    expect(screen.getByLabelText('Data file path')).toHaveAccessibleDescription(
      /No dataset stored yet\. Make one with Format Input and press Use for training/,
    );
    expect(screen.getByLabelText('Base model')).toHaveValue('meta-llama/Llama-3.2-3B-Instruct');
    expect(trainButton()).toHaveTextContent('Train Model');
    expect(trainButton()).toBeEnabled();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it("Train Model → 'Training...' disabled with a progress bar → '✅ Training finished!'", async () => {
    const user = userEvent.setup();
    renderPanel();
    await user.clear(screen.getByLabelText('Data file path'));
    await user.type(screen.getByLabelText('Data file path'), 'service-data/datasets/mine.json');
    await user.click(trainButton());
    expect(trainButton()).toHaveTextContent('Training...');
    expect(trainButton()).toBeDisabled();
    const bar = await screen.findByRole('progressbar', { name: 'Training progress' });
    await waitFor(() => expect(Number(bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0));
    expect(bar).toHaveAttribute('aria-valuetext', expect.stringMatching(/^\d+\.\d\d%$/));
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(
      'The adapter was written to service-data/outputs/lora on the training service.',
    );
    expect(trainButton()).toHaveTextContent('Train Model');
    expect(trainButton()).toBeEnabled();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    // Exactly this body, then GET /logs/{id}?tail=10.
    expect(mock.starts).toEqual([
      {
        script_path: 'training/finetune.py',
        output_dir: 'service-data/outputs/lora',
        data_file: 'service-data/datasets/mine.json',
        base_model: 'meta-llama/Llama-3.2-3B-Instruct',
        max_len: 256,
        repeat: 30,
        max_steps: 120,
        lr: 2e-4,
      },
    ]);
    expect(mock.requests).toContain('GET /logs/mock-run-1?tail=10');
    // The last log lines are visible.
    const log = screen.getByRole('region', { name: 'Fine-tuning' }).querySelector('pre');
    expect(log).toHaveTextContent('step 120/120');
    // Polling stopped.
    const polls = mock.requests.filter((r) => r.startsWith('GET /logs')).length;
    await new Promise((r) => setTimeout(r, 80));
    expect(mock.requests.filter((r) => r.startsWith('GET /logs')).length).toBe(polls);
  });

  // Regression: a fresh clone's Train Model sent a data file that did not exist and got a pop-up.
  it('with no dataset, Train Model says so in the panel and sends nothing', async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    const user = userEvent.setup();
    renderPanel({ dataFileFromDataset: undefined });
    await user.click(trainButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Training did not start. No dataset stored yet. Make one with Format Input and press Use for training',
    );
    expect(mock.starts).toHaveLength(0);
    expect(alert).not.toHaveBeenCalled();
  });

  it("a data file the service cannot find: the server's text and where a dataset comes from", async () => {
    server.use(
      http.post(`${DEFAULT_TRAINING_URL}/train`, () =>
        HttpResponse.json(
          { error: 'data_file "service-data/datasets/gone.json" does not exist' },
          { status: 400 },
        ),
      ),
    );
    const user = userEvent.setup();
    renderPanel({ dataFileFromDataset: 'service-data/datasets/gone.json' });
    await user.click(trainButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('data_file "service-data/datasets/gone.json" does not exist');
    expect(alert).toHaveTextContent('Store one with Format Input → Use for training.');
  });

  // Regression: a refused start used window.alert.
  it("a refused start shows the server's text in the panel (role=alert) and returns to idle", async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    mock.setScenario('fail-start');
    const user = userEvent.setup();
    renderPanel();
    await user.click(trainButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      `Training did not start. ${MOCK_MESSAGES.startFailed}`,
    );
    expect(alert).not.toHaveBeenCalled();
    expect(trainButton()).toHaveTextContent('Train Model');
    expect(trainButton()).toBeEnabled();
    expect(mock.requests.some((r) => r.startsWith('GET /logs'))).toBe(false);
  });

  it('a service that is not running: the panel says so', async () => {
    server.use(http.post(`${DEFAULT_TRAINING_URL}/train`, () => HttpResponse.error()));
    const user = userEvent.setup();
    renderPanel();
    await user.click(trainButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /The training service at http:\/\/127\.0\.0\.1:8000 is unreachable/,
    );
  });

  // Regression: the summary said only "exit code 1" while the cause sat in the log box.
  it('a run whose script fails leads with the cause: exit code and the error line', async () => {
    mock.setScenario('fail-run');
    const user = userEvent.setup();
    renderPanel();
    await user.click(trainButton());
    const failed = await screen.findByRole('alert');
    await waitFor(() => expect(failed).toHaveTextContent(/^Training failed \(exit code 1\):/));
    expect(failed).toHaveTextContent(
      `The GPU ran out of memory (CUDA out of memory). ${MOCK_MESSAGES.runError}`,
    );
    expect(trainButton()).toBeEnabled();
  });

  it('Cancel stops the run', async () => {
    const user = userEvent.setup();
    renderPanel({}, { pollInterval: 60_000 });
    await user.click(trainButton());
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('Training cancelled.')).toBeInTheDocument();
    expect(mock.requests).toContain('POST /runs/mock-run-1/cancel');
    expect(trainButton()).toBeEnabled();
  });

  it('after several failed polls it warns that the service is unreachable, keeping the run', async () => {
    const user = userEvent.setup();
    renderPanel();
    server.use(http.get(`${DEFAULT_TRAINING_URL}/logs/:id`, () => HttpResponse.error()));
    await user.click(trainButton());
    const warning = await screen.findByText(/is not answering; still trying, the run is kept/);
    expect(warning).toHaveTextContent('http://127.0.0.1:8000');
    expect(trainButton()).toHaveTextContent('Training...');
    server.resetHandlers();
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(screen.queryByText(/is not answering/)).not.toBeInTheDocument();
  });

  it('keeps field values across reloads', async () => {
    const user = userEvent.setup();
    const first = renderPanel();
    await user.clear(screen.getByLabelText('Script path'));
    await user.type(screen.getByLabelText('Script path'), 'training/other.py');
    first.unmount();
    renderPanel();
    expect(screen.getByLabelText('Script path')).toHaveValue('training/other.py');
  });

  it('picks a run still going up again after a reload', async () => {
    const user = userEvent.setup();
    const first = renderPanel({}, { pollInterval: 60_000 });
    await user.click(trainButton());
    await screen.findByRole('button', { name: 'Cancel' });
    first.unmount();
    renderPanel();
    expect(trainButton()).toHaveTextContent('Training...');
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(mock.starts).toHaveLength(1);
  });

  it('takes the data file path from the dataset feature', () => {
    const view = renderPanel({ dataFileFromDataset: 'service-data/datasets/a.json' });
    expect(screen.getByLabelText('Data file path')).toHaveValue('service-data/datasets/a.json');
    view.rerenderWith({ dataFileFromDataset: 'service-data/datasets/b.json' });
    const region = screen.getByRole('region', { name: 'Fine-tuning' });
    expect(within(region).getByLabelText('Data file path')).toHaveValue(
      'service-data/datasets/b.json',
    );
  });
});
