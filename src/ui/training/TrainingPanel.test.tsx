import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { createTrainingMock, MOCK_MESSAGES } from '../../../mocks/training-handlers';
import { DEFAULT_BASE_MODEL, DEFAULT_TRAINING_URL } from '../../shared/training-api';
import { baseModelSuggestions, MODELS } from '../../shared/models';
import { renderPanel, serveTrainingMock } from '../../../tests/component/training-panel';

// jsdom has no canvas: uPlot is replaced by a recorder (the real chart is drawn in the Chromium
// e2e, tests/e2e/train-to-chat.e2e.test.ts).
const charts = vi.hoisted(() => ({ created: 0, data: [] as unknown[] }));
vi.mock('uplot', () => ({
  default: class {
    constructor() {
      charts.created += 1;
    }
    setData(data: unknown) {
      charts.data.push(data);
    }
    setSize() {}
    destroy() {}
  },
}));

const { mock, server } = serveTrainingMock({ stepsPerPoll: 40 });

beforeEach(() => {
  charts.created = 0;
  charts.data.length = 0;
});
afterEach(() => {
  server.resetHandlers();
  vi.restoreAllMocks();
});

const trainButton = () => screen.getByRole('button', { name: /Train Model|Training\.\.\./ });

/** Renders the panel and presses Train Model; returns the user that pressed it. */
async function startRun(...panel: Parameters<typeof renderPanel>) {
  const user = userEvent.setup();
  renderPanel(...panel);
  await user.click(trainButton());
  return user;
}

/** The alert of a run whose script failed, once it leads with the exit code. */
async function failedRunAlert() {
  const failed = await screen.findByRole('alert');
  await waitFor(() => expect(failed).toHaveTextContent(/^Training failed \(exit code 1\):/));
  return failed;
}

describe('TrainingPanel: the trainer and the method', () => {
  it('says what the trainer has in one line, and warns about a 3B model on the CPU', async () => {
    renderPanel();
    expect(
      await screen.findByText('Trainer: torch 2.13 · CPU only', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/has about 3 billion parameters/, { selector: '[role=note]' }),
    ).toHaveTextContent(
      'meta-llama/Llama-3.2-3B-Instruct has about 3 billion parameters: on the CPU alone a run takes hours',
    );
    // A warning, not a refusal.
    expect(trainButton()).toBeEnabled();
    // Beside the plan's memory estimate, no second rough figure that could disagree with it.
    expect(await screen.findByText(/peak memory about/, {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText(/has about 3 billion parameters/)).not.toHaveTextContent(/needs about/);
  });

  it('a small base model: no warning', async () => {
    localStorage.setItem(
      'training.form.v1',
      JSON.stringify({ baseModel: 'HuggingFaceTB/SmolLM2-135M-Instruct' }),
    );
    renderPanel();
    await screen.findByText('Trainer: torch 2.13 · CPU only');
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });

  it('Full fine-tuning is sent as method "full" (and an in-browser base is not exported)', async () => {
    const user = userEvent.setup();
    renderPanel({ baseModelSuggestions: baseModelSuggestions() });
    await user.clear(screen.getByLabelText('Base model'));
    await user.type(screen.getByLabelText('Base model'), 'meta-llama/Llama-3.2-1B-Instruct');
    await user.click(screen.getByRole('radio', { name: /Full fine-tuning/ }));
    await user.click(trainButton());
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]).toMatchObject({ method: 'full' });
    expect(mock.starts[0]).not.toHaveProperty('export_base');
  });

  it('packages missing: says which, Set up the trainer streams its output, then the line', async () => {
    const missing = createTrainingMock({ trainer: 'missing' });
    server.use(...missing.handlers);
    const user = userEvent.setup();
    renderPanel();
    const alert = await screen.findByText(/The trainer is not set up:/, {}, { timeout: 5000 });
    expect(alert.parentElement).toHaveTextContent(
      'torch, transformers, peft, accelerate, onnx, onnxruntime, onnx-ir are missing',
    );
    await user.click(screen.getByRole('button', { name: 'Set up the trainer' }));
    expect(await screen.findByText('The trainer is set up.', {}, { timeout: 8000 })).toBeVisible();
    expect(screen.getByLabelText('Set-up output')).toHaveTextContent('Successfully installed');
    expect(await screen.findByText('Trainer: torch 2.13 · CPU only')).toBeInTheDocument();
    expect(missing.requests).toContain('POST /trainer/setup');
  }, 20_000);
});

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
    // Spec section 7's body (plus the method, and export_base: the 3B default has no in-browser
    // counterpart to compare with), then GET /logs/{id}?tail=10.
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
        method: 'lora',
        export_base: true,
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
    await startRun({ dataFileFromDataset: undefined });
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
    await startRun({ dataFileFromDataset: 'service-data/datasets/gone.json' });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('data_file "service-data/datasets/gone.json" does not exist');
    expect(alert).toHaveTextContent('Store one with Format Input → Use for training.');
  });

  // Regression: a refused start used window.alert.
  it("a refused start shows the server's text in the panel (role=alert) and returns to idle", async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    mock.setScenario('fail-start');
    await startRun();
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
    await startRun();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /The training service at http:\/\/127\.0\.0\.1:8000 is unreachable/,
    );
  });

  // Regression: the summary said only "exit code 1" while the cause sat in the log box.
  it('a run whose script fails leads with the cause: exit code and the error line', async () => {
    mock.setScenario('fail-run');
    await startRun();
    const failed = await failedRunAlert();
    expect(failed).toHaveTextContent(
      `The GPU ran out of memory (CUDA out of memory). ${MOCK_MESSAGES.runError}`,
    );
    expect(trainButton()).toBeEnabled();
  });

  it('a run that downloads its base first: the download bar, then the training bar', async () => {
    mock.setScenario('download');
    await startRun();
    const download = await screen.findByRole('progressbar', { name: 'Base model download' });
    expect(download).toHaveTextContent(/^Downloading the base model: [\d.]+ ?[KMG]?B of 5\.99GB$/);
    expect(
      await screen.findByText(/model-0000[12]-of-00002\.safetensors: .+ \(file [34] of 4\)/),
    ).toBeInTheDocument();
    // Once the download is done the training bar takes over, and the run ends as usual.
    await waitFor(() =>
      expect(
        screen.queryByRole('progressbar', { name: 'Base model download' }),
      ).not.toBeInTheDocument(),
    );
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
  });

  it('Cancel stops the run', async () => {
    const user = await startRun({}, { pollInterval: 60_000 });
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

  // The service owns the run: a page (re)opened while a run goes attaches to it, also to one
  // started from another tab, browser or curl, without pressing Train Model.
  it('attaches on load to the run active on the service, with progress, log and Cancel', async () => {
    // As curl would: POST /train straight to the service, no page involved.
    const answer = await fetch(`${DEFAULT_TRAINING_URL}/train`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        script_path: 'training/finetune.py',
        output_dir: 'service-data/outputs/from-curl',
        data_file: 'service-data/datasets/x.json',
        base_model: 'meta-llama/Llama-3.2-1B-Instruct',
        max_len: 256,
        repeat: 30,
        max_steps: 120,
        lr: 2e-4,
      }),
    });
    const { run_id } = (await answer.json()) as { run_id: string };
    await fetch(`${DEFAULT_TRAINING_URL}/logs/${run_id}`); // the mock advances a run per log poll
    const user = userEvent.setup();
    renderPanel({}, { pollInterval: 60_000 });
    await waitFor(() => expect(trainButton()).toHaveTextContent('Training...'));
    const bar = await screen.findByRole('progressbar', { name: 'Training progress' });
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '66.67'));
    expect(screen.getByLabelText('Last log lines')).toHaveTextContent('step 80/120');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('Training cancelled.')).toBeInTheDocument();
    expect(mock.requests).toContain(`POST /runs/${run_id}/cancel`);
    expect(mock.starts).toHaveLength(1);
    expect(localStorage.getItem('training.run.v1')).toBeNull();
  });

  it('the last step done but the trainer still saving: 100 % and "Saving…", then finished', async () => {
    await startRun({}, { pollInterval: 250 });
    expect(await screen.findByText(/^Saving…/, undefined, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Training progress' })).toHaveAttribute(
      'aria-valuenow',
      '100',
    );
    expect(screen.queryByText('✅ Training finished!')).not.toBeInTheDocument();
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(screen.queryByText(/^Saving…/)).not.toBeInTheDocument();
  });

  it('draws the loss curve lazily, once there are points, named for the loss, figures beside it', async () => {
    await startRun({}, { pollInterval: 60_000 });
    await screen.findByRole('button', { name: 'Cancel' });
    expect(screen.queryByRole('img', { name: /loss/i })).not.toBeInTheDocument();
    expect(charts.created).toBe(0); // no points yet: the chart module is not even loaded
    cleanup();
    // The run has points now (the mock advanced it on the first poll): a new page attaches.
    renderPanel({}, { pollInterval: 60_000 });
    const chart = await screen.findByRole('img', {
      name: /^Training loss by step: \d+ points, last loss [\d.]+ at step \d+; held-out loss: \d+ points, last [\d.]+ at step \d+$/,
    });
    expect(chart).toBeInTheDocument();
    expect(charts.created).toBe(1);
    const [steps, losses] = charts.data.at(-1) as [number[], number[]];
    expect(steps.length).toBeGreaterThan(0);
    expect(losses).toHaveLength(steps.length);
    const stats = document.querySelector('dl.training-stats') as HTMLElement;
    expect(stats).toHaveTextContent(/Last loss[\d.]+/);
    expect(stats).toHaveTextContent(/Speed/);
    expect(stats).toHaveTextContent(/Time left/);
  });

  it('lists past runs with state, base model, steps, duration and last loss, and opens a log', async () => {
    const user = await startRun();
    await screen.findByText('✅ Training finished!');
    const runs = await screen.findByRole('region', { name: 'Runs' });
    const item = within(runs).getAllByRole('listitem')[0] as HTMLElement;
    expect(item).toHaveTextContent(
      /trained and saved; no browser copy · lora · meta-llama\/Llama-3\.2-3B-Instruct · 120\/120 steps · \d+ s · loss [\d.]+/,
    );
    await user.click(within(item).getByRole('button', { name: 'Log' }));
    const log = await within(item).findByLabelText('Log of run mock-run-1');
    expect(log).toHaveTextContent('saved LoRA adapter');
    expect(within(item).getByRole('button', { name: 'Hide log' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
  });

  it('a finished run with a browser-ready model offers Load in chat, and lists it for the picker', async () => {
    mock.setScenario('web-model');
    const loaded: string[] = [];
    const listed: string[][] = [];
    const user = userEvent.setup();
    renderPanel({
      onLoadInChat: (m) => loaded.push(m.id),
      onTrainedModels: (models, url) => listed.push(models.map((m) => `${url} ${m.id}`)),
    });
    await user.click(trainButton());
    await screen.findByText('✅ Training finished!');
    const button = await screen.findByRole('button', { name: 'Load in chat' });
    expect(button.closest('section')).toHaveAccessibleName('Fine-tuning');
    await user.click(button);
    // The Runs list offers it too, named for the run's folder.
    await user.click(await screen.findByRole('button', { name: 'Load in chat: lora' }));
    expect(loaded).toEqual(['trained/lora', 'trained/lora']);
    // Compare with base: from the finished run and from the Runs list, to the run's Compare URL.
    const compare = screen.getAllByRole('link', { name: /^Compare with base/ });
    expect(compare.map((l) => l.getAttribute('href'))).toEqual([
      '#/compare?run=mock-run-1',
      '#/compare?run=mock-run-1',
    ]);
    // The trained model, and its base exported to compare with (export_base: the 3B default).
    expect(listed.at(-1)).toEqual([
      'http://127.0.0.1:8000 trained/lora',
      'http://127.0.0.1:8000 trained/lora-base',
    ]);
  });

  it('a run whose web/ folder is incomplete: no Load in chat, and the run says why', async () => {
    await startRun();
    await screen.findByText('✅ Training finished!');
    const panel = screen.getByRole('region', { name: 'Fine-tuning' });
    expect(
      await within(panel).findByText(
        (_, node) =>
          node?.tagName === 'P' &&
          node.textContent === `Trained and saved; no browser copy. ${MOCK_MESSAGES.noModel}`,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load in chat' })).not.toBeInTheDocument();
    const runs = await screen.findByRole('region', { name: 'Runs' });
    expect(runs).toHaveTextContent('trained and saved; no browser copy');
    expect(runs).not.toHaveTextContent('succeeded');
    expect(runs).toHaveTextContent(`Why no browser copy: ${MOCK_MESSAGES.noModel}`);
  });

  it('a second run into the output folder of a finished one is refused: the service text in an alert', async () => {
    const user = await startRun();
    await screen.findByText('✅ Training finished!');
    await user.click(trainButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Output folder service-data/outputs/lora already holds the result of run mock-run-1',
    );
    expect(mock.runs.size).toBe(1);
    expect(screen.getByLabelText('Output directory')).toHaveValue('service-data/outputs/lora');
  });

  it('the Base model field suggests the Hub ids of the in-browser models; the default stays', () => {
    renderPanel({ baseModelSuggestions: baseModelSuggestions() });
    const input = screen.getByLabelText('Base model');
    expect(input).toHaveValue('meta-llama/Llama-3.2-3B-Instruct');
    const list = document.getElementById(input.getAttribute('list') ?? '');
    const values = [...(list?.querySelectorAll('option') ?? [])].map((o) => o.value);
    expect(values).toContain('meta-llama/Llama-3.2-1B-Instruct');
    // The app's default first, its ungated alternative, then the in-browser models (each once).
    expect(values).toEqual([
      DEFAULT_BASE_MODEL,
      'Qwen/Qwen2.5-3B-Instruct',
      ...baseModelSuggestions()
        .map((m) => m.id)
        .filter((v) => v !== DEFAULT_BASE_MODEL),
    ]);
    expect(values.length).toBeGreaterThanOrEqual(MODELS.length);
    expect(input).toHaveAccessibleDescription(/a model folder on the training service's machine/);
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

describe('TrainingPanel: resume and what a run wrote', () => {
  it('a failed run with a checkpoint: Resume in its summary continues the same run to ✅', async () => {
    mock.setScenario('fail-run');
    const user = await startRun();
    await failedRunAlert();
    expect(
      screen.getByText(/from its checkpoint at step 40, in the same output folder/),
    ).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(mock.requests).toContain('POST /runs/mock-run-1/resume');
    expect(mock.starts).toHaveLength(1);
    const log = screen.getByRole('region', { name: 'Fine-tuning' }).querySelector('pre');
    expect(log).toHaveTextContent('step 120/120');
    expect(mock.runs.get('mock-run-1')?.log).toContain('[service] resumed from step 40');
  });

  it('the Runs list offers Resume for a resumable run only, and resumes it', async () => {
    mock.setScenario('fail-run');
    const user = await startRun();
    const runs = await screen.findByRole('region', { name: 'Runs' });
    const row = await within(runs).findByRole('button', { name: 'Resume lora from step 40' });
    await user.click(row);
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(mock.requests).toContain('POST /runs/mock-run-1/resume');
    await waitFor(() =>
      expect(within(runs).getAllByRole('listitem')[0]).toHaveTextContent(/^trained and saved/),
    );
    expect(within(runs).queryByRole('button', { name: /^Resume/ })).not.toBeInTheDocument();
  });

  it('a refused resume: the service text in an alert', async () => {
    mock.setScenario('fail-run');
    const user = await startRun();
    const resume = await screen.findByRole('button', { name: 'Resume' });
    const text =
      'Run mock-run-1 has no checkpoint to resume from (service-data/outputs/lora/checkpoints)';
    server.use(
      http.post(`${DEFAULT_TRAINING_URL}/runs/:id/resume`, () =>
        HttpResponse.json({ error: text }, { status: 409 }),
      ),
    );
    await user.click(resume);
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(trainButton()).toBeEnabled();
  });

  it('a finished run names what it wrote for its method, in the summary and in the Runs list', async () => {
    const user = userEvent.setup();
    renderPanel();
    await user.click(screen.getByRole('radio', { name: /Full fine-tuning/ }));
    await user.click(trainButton());
    expect(await screen.findByText('✅ Training finished!')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(
      'The fine-tuned model was written to service-data/outputs/lora on the training service.',
    );
    const runs = await screen.findByRole('region', { name: 'Runs' });
    expect(within(runs).getAllByRole('listitem')[0]).toHaveTextContent(
      'The fine-tuned model was written to service-data/outputs/lora.',
    );
    await user.click(screen.getByRole('radio', { name: /LoRA/ }));
    await user.clear(screen.getByLabelText('Output directory'));
    await user.type(screen.getByLabelText('Output directory'), 'service-data/outputs/adapter');
    await user.click(trainButton());
    await waitFor(() =>
      expect(screen.getByRole('status')).toHaveTextContent(
        'The adapter was written to service-data/outputs/adapter on the training service.',
      ),
    );
    await waitFor(() =>
      expect(within(runs).getAllByRole('listitem')[0]).toHaveTextContent(
        'The adapter was written to service-data/outputs/adapter.',
      ),
    );
  });
});

describe('TrainingPanel: a dataset file and the models the service has', () => {
  const entries = [
    { prompt: 'Where is the harbour?', completion: 'By the old mill.' },
    { prompt: 'When does the ferry leave?', completion: 'At nine.' },
  ];

  it('a JSONL file is stored on the service (PUT /datasets) and the Data file field holds its path', async () => {
    const user = userEvent.setup();
    renderPanel({ dataFileFromDataset: undefined });
    const file = new File([entries.map((e) => JSON.stringify(e)).join('\n')], 'harbour.jsonl', {
      type: 'application/jsonl',
    });
    await user.upload(screen.getByLabelText('Or upload a dataset file'), file);
    await waitFor(() =>
      expect(screen.getByLabelText('Data file path')).toHaveValue(
        'service-data/datasets/harbour.json',
      ),
    );
    expect(mock.requests).toContain('PUT /datasets/harbour');
    expect(screen.getByText(/Stored harbour\.jsonl \(2 entries\) as/)).toBeInTheDocument();
    await user.click(trainButton());
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]?.data_file).toBe('service-data/datasets/harbour.json');
  });

  it('a bad file: an alert naming the file (and the line), nothing stored', async () => {
    const user = userEvent.setup();
    renderPanel({ dataFileFromDataset: undefined });
    const input = screen.getByLabelText('Or upload a dataset file');
    const broken = new File([`${JSON.stringify(entries[0])}\n{"prompt": `], 'broken.jsonl');
    await user.upload(input, broken);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /^broken\.jsonl, line 2 is not valid JSON/,
    );
    await user.upload(input, new File([''], 'empty.json'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'empty.json is empty: a dataset needs at least one {prompt, completion} or {messages} entry.',
    );
    expect(mock.requests.filter((r) => r.startsWith('PUT /datasets'))).toEqual([]);
    expect(screen.getByLabelText('Data file path')).toHaveValue('');
  });

  it("the Base model field suggests a trained model's merged folder once the service has one", async () => {
    mock.setScenario('web-model');
    await startRun();
    await screen.findByText('✅ Training finished!');
    const input = screen.getByLabelText('Base model');
    const list = document.getElementById(input.getAttribute('list') ?? '');
    await waitFor(() =>
      expect([...(list?.querySelectorAll('option') ?? [])].map((o) => o.value)).toContain(
        'service-data/outputs/lora/merged',
      ),
    );
  });
});
