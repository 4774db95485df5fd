import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createActor, fromCallback, fromPromise, waitFor as waitForActor } from 'xstate';
import { createTrainingMock } from '../../../mocks/training-handlers';
import { appMachine, type GpuInfo } from '../../machines/appMachine';
import { NO_QUESTIONS_MESSAGE } from '../../machines/evaluationMachine';
import { createServices } from '../../composition';
import { DEFAULT_TRAINING_URL, TRAINING_PARAMS, type RunInfo } from '../../shared/training-api';
import type { RunEvaluation } from '../../shared/run-evaluation';
import { MODELS } from '../../shared/models';
import type { WorkerActorEvent, WorkerResponse } from '../../shared/worker-protocol';
import { Compare } from './Compare';

const mock = createTrainingMock({ stepsPerPoll: 1000 });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  mock.reset();
  server.resetHandlers();
});
afterAll(() => server.close());

/** Wired as the composition root wires it: the mock service, the evaluations in fake IndexedDB. */
const services = createServices({ trainingUrl: DEFAULT_TRAINING_URL });
const api = (path: string, init?: RequestInit) =>
  fetch(`${DEFAULT_TRAINING_URL}${path}`, init).then((r) => r.json() as Promise<unknown>);

/** A finished run on the mock service (web-model: a trained model and a base export). */
async function finishedRun({
  exportBase = false,
  base = 'meta-llama/Llama-3.2-1B-Instruct',
} = {}): Promise<RunInfo> {
  mock.setScenario('web-model');
  const { run_id } = (await api('/train', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ...TRAINING_PARAMS,
      script_path: 'training/finetune.py',
      output_dir: `out/harbour-${Math.random().toString(36).slice(2, 8)}`,
      data_file: 'data.json',
      base_model: base,
      export_base: exportBase,
    }),
  })) as { run_id: string };
  for (let i = 0; i < 4; i++) await api(`/logs/${run_id}?tail=10`);
  const run = (await api(`/runs/${run_id}`)) as RunInfo;
  expect(run.state).toBe('succeeded');
  return run;
}

/**
 * The app actor with a scripted worker: a load of an id in `failLoads` fails; every answer of a
 * model is `answers(modelId, question)`; with `silent`, a generate request hears nothing at all
 * (a hung worker). `replyStallMs` is the page's `?stallSeconds=`.
 */
function startApp(script: {
  failLoads?: Set<string>;
  answers?: (model: string, question: string) => string;
  silent?: boolean;
  replyStallMs?: number;
}) {
  const posted: WorkerActorEvent[] = [];
  let loaded = '';
  const llmWorker = fromCallback<WorkerActorEvent>(({ receive, sendBack }) => {
    const reply = (message: WorkerResponse) =>
      queueMicrotask(() => sendBack({ type: 'worker.message', message }));
    receive((request) => {
      posted.push(request);
      if (request.type === 'load') {
        reply({ status: 'loading', data: 'Loading model...' });
        if (script.failLoads?.has(request.data.id)) {
          reply({ status: 'error', phase: 'load', data: 'Network error while downloading' });
          return;
        }
        loaded = request.data.id;
        reply({ status: 'ready', data: { id: request.data.id, dtype: request.data.dtype } });
      }
      if (request.type === 'generate' && !script.silent) {
        const purpose = request.purpose;
        const text = script.answers?.(loaded, request.data[0]?.content ?? '') ?? 'an answer';
        reply({ status: 'start', purpose });
        reply({ status: 'update', output: text, numTokens: 4, tps: 8, channel: 'answer', purpose });
        reply({
          status: 'complete',
          numTokens: 4,
          seconds: 0.5,
          interrupted: false,
          finish: 'end',
          purpose,
        });
      }
    });
  });
  const app = createActor(
    appMachine.provide({
      actors: {
        probeWebGPU: fromPromise(async (): Promise<GpuInfo> => ({
          supported: true,
          shaderF16: true,
        })),
        llmWorker,
      },
    }),
    { input: { models: MODELS, maxNewTokens: 64, replyStallMs: script.replyStallMs } },
  ).start();
  return { app, posted };
}

async function renderCompare({
  runId = null,
  script = {},
}: {
  runId?: string | null;
  script?: Parameters<typeof startApp>[0];
} = {}) {
  const { app, posted } = startApp(script);
  await waitForActor(app, (s) => s.matches('supported'));
  const compare = await services.loadCompare();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = (route: string | null) => (
    <QueryClientProvider client={queryClient}>
      <Compare compare={compare} app={app} runId={route} />
    </QueryClientProvider>
  );
  const { rerender } = render(view(runId));
  /** The route's `?run=` changing under the open view (a link from the training panel). */
  const followRoute = (route: string | null) => rerender(view(route));
  return { app, posted, compare, followRoute, user: userEvent.setup() };
}

const pasteBox = () => screen.getByRole('textbox', { name: /^Questions \(one per line/ });

describe('Compare view', () => {
  it('from a finished run: B = its trained model, A = the in-browser model of its base; held-out questions; scored table', async () => {
    const run = await finishedRun();
    const { user, app } = await renderCompare({
      runId: run.id,
      // B answers with the reference, A with something else.
      script: {
        answers: (model) =>
          model.startsWith('trained/') ? 'The harbour festival is held every July.' : 'No idea.',
      },
    });
    await waitFor(() => expect(screen.getByLabelText('Model B (after)')).toHaveValue(run.model_id));
    expect(screen.getByLabelText('Model A (before)')).toHaveValue('llama-3.2-1b');
    expect(screen.getByText(/A is Llama 3\.2 1B Instruct/)).toBeInTheDocument();
    expect(screen.getByLabelText("The run's held-out entries (not trained on)")).toBeChecked();
    await screen.findByText('1 question, 1 with a reference answer (only those are scored).');

    await user.click(screen.getByRole('button', { name: 'Compare' }));
    await screen.findByText(/^The chat's model is now harbour-.* \(fine-tuned\)/);
    const table = screen.getByRole('table');
    const cells = within(table).getAllByRole('cell');
    expect(cells.map((c) => c.textContent?.trim())).toEqual([
      '1',
      'Which festival is held in summer?',
      'The harbour festival is held every July.',
      'No idea.',
      'The harbour festival is held every July.',
      '0.000',
      '1.000',
      'B',
    ]);
    expect(screen.getByText('B closer on 1 of 1')).toBeInTheDocument();
    // The picker follows the worker: B selected (and loaded again) in the chat.
    expect(app.getSnapshot().context.model?.getSnapshot().context.selected).toBe(run.model_id);
    // Saved and listed.
    await screen.findByRole('button', { name: /^Llama 3\.2 1B Instruct.* vs harbour-/ });
  });

  it("saved: the scores go to the run's model card (PUT /runs/{id}/evaluation), said beside it", async () => {
    const run = await finishedRun();
    const { user } = await renderCompare({
      runId: run.id,
      script: {
        answers: (model) =>
          model.startsWith('trained/') ? 'The harbour festival is held every July.' : 'No idea.',
      },
    });
    await waitFor(() => expect(screen.getByLabelText('Model B (after)')).toHaveValue(run.model_id));
    await screen.findByText('1 question, 1 with a reference answer (only those are scored).');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    const name = run.output_dir.split('/').pop() ?? '';
    expect(
      await screen.findByText(`Saved in this browser. Scores added to ${name}'s model card.`),
    ).toHaveAttribute('role', 'status');
    const sent = mock.evaluations.get(run.id);
    expect(sent).toMatchObject({
      a: { id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16', role: 'base', dtype: 'q4f16' },
      b: { id: run.model_id, label: `${name} (fine-tuned)`, role: 'fine-tuned' },
      source: { kind: 'held-out', run_id: run.id },
      questions: 1,
      settings: { temperature: 0, max_new_tokens: 64, system_prompt_chars: 0 },
      summary: {
        a: { answered: 1, mean_rouge_l: 0, tokens_per_second: 8 },
        b: { answered: 1, mean_rouge_l: 1, tokens_per_second: 8 },
        compared: 1,
        a_closer: 0,
        b_closer: 1,
        ties: 0,
      },
    } satisfies Partial<Record<keyof RunEvaluation, unknown>>);
    // Once per save: nothing more is sent while the view stays.
    expect(mock.requests.filter((r) => r.startsWith('PUT /runs/'))).toHaveLength(1);
  });

  it("the service refuses the scores: its error beside 'Saved', and the evaluation stays saved", async () => {
    const run = await finishedRun();
    const refusal = `Run ${run.id}'s merged model folder ${run.output_dir}/merged no longer exists (deleted or moved?)`;
    server.use(
      http.put(`${DEFAULT_TRAINING_URL}/runs/:id/evaluation`, () =>
        HttpResponse.json({ error: refusal }, { status: 404 }),
      ),
    );
    const { user } = await renderCompare({ runId: run.id, script: { answers: () => 'x' } });
    await waitFor(() => expect(screen.getByLabelText('Model B (after)')).toHaveValue(run.model_id));
    await screen.findByText('1 question, 1 with a reference answer (only those are scored).');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    const name = run.output_dir.split('/').pop() ?? '';
    expect(
      await screen.findByText(
        `Saved in this browser. The scores were not added to ${name}'s model card: ${refusal}`,
      ),
    ).toHaveAttribute('role', 'alert');
    // This run's evaluation is in the saved list all the same.
    await screen.findByRole('button', {
      name: new RegExp(`^Llama 3\\.2 1B Instruct.* vs ${name}`),
    });
  });

  it('no trained model in A or B: saved, and nothing is sent', async () => {
    const { user } = await renderCompare({ script: { answers: () => 'Paris.' } });
    await user.selectOptions(screen.getByLabelText('Model A (before)'), 'llama-3.2-1b');
    await user.selectOptions(screen.getByLabelText('Model B (after)'), 'llama-3.2-1b');
    await user.type(pasteBox(), 'Capital of France?\tParis.');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    await screen.findByText('Saved in this browser.');
    expect(mock.requests.filter((r) => r.startsWith('PUT '))).toEqual([]);
  });

  it('a new ?run= under the open view: that run, its held-out set and its pair; the settings stay', async () => {
    const run = await finishedRun();
    const { user, followRoute } = await renderCompare();
    expect(screen.getByLabelText('Questions I paste or type')).toBeChecked();
    const prompt = screen.getByLabelText('System prompt (optional)');
    await user.type(prompt, 'Be brief.');
    followRoute(run.id);
    await waitFor(() => expect(screen.getByLabelText('Model B (after)')).toHaveValue(run.model_id));
    expect(screen.getByLabelText('Model A (before)')).toHaveValue('llama-3.2-1b');
    expect(screen.getByLabelText("The run's held-out entries (not trained on)")).toBeChecked();
    expect(screen.getByLabelText('Run')).toHaveValue(run.id);
    expect(prompt).toHaveValue('Be brief.');
    // A choice by hand after the defaults stays.
    await user.selectOptions(screen.getByLabelText('Model A (before)'), run.model_id ?? '');
    expect(screen.getByLabelText('Model A (before)')).toHaveValue(run.model_id);
  });

  it("A = the trainer's base export when no in-browser model is made from the base", async () => {
    const run = await finishedRun({ exportBase: true, base: 'Qwen/Qwen2.5-0.5B-Instruct' });
    await renderCompare({ runId: run.id });
    await waitFor(() =>
      expect(screen.getByLabelText('Model A (before)')).toHaveValue(run.base_model_id),
    );
    expect(screen.getByText(/A is the trainer's browser export of its base/)).toBeInTheDocument();
  });

  it('no base anywhere: says so and leaves A to the user', async () => {
    const run = await finishedRun({ base: 'Qwen/Qwen2.5-0.5B-Instruct' });
    await renderCompare({ runId: run.id });
    await screen.findByText(
      /No in-browser model is made from its base Qwen\/Qwen2\.5-0\.5B-Instruct/,
    );
    expect(screen.getByLabelText('Model A (before)')).toHaveValue('');
  });

  it('a run without split.json (404) or with a malformed one (422): a clear message', async () => {
    const run = await finishedRun();
    mock.setSplit(run.id, 'missing');
    await renderCompare({ runId: run.id });
    expect(await screen.findByRole('alert')).toHaveTextContent(
      `Run ${run.id} has no held-out questions: Run ${run.id} held out no questions: ${run.output_dir}/split.json does not exist`,
    );
    const other = await finishedRun();
    mock.setSplit(other.id, 'malformed');
    await renderCompare({ runId: other.id });
    await screen.findByText(
      /split\.json is malformed\): The held-out split of run .* is malformed/,
    );
  });

  it('no questions: Compare says what to add; A and B the same model is said on screen', async () => {
    const { user, posted } = await renderCompare();
    await user.selectOptions(screen.getByLabelText('Model A (before)'), 'llama-3.2-1b');
    await user.selectOptions(screen.getByLabelText('Model B (after)'), 'llama-3.2-1b');
    expect(screen.getByText(/A and B are the same model/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(NO_QUESTIONS_MESSAGE);
    expect(posted.some((p) => p.type === 'load')).toBe(false);
  });

  it('a model failing to load mid-evaluation: rows kept, the error in place, Retry continues', async () => {
    const failLoads = new Set(['onnx-community/Phi-3.5-mini-instruct-onnx-web']);
    const { user } = await renderCompare({ script: { failLoads, answers: () => 'Paris.' } });
    await user.selectOptions(screen.getByLabelText('Model A (before)'), 'llama-3.2-1b');
    await user.selectOptions(screen.getByLabelText('Model B (after)'), 'phi-3.5-mini');
    await user.type(pasteBox(), 'Capital of France?\tParis.{enter}Capital of Italy?');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    expect(await screen.findByText(/^The comparison stopped:/)).toHaveTextContent(
      /^The comparison stopped: Phi 3\.5 mini.* failed to load: Network error while downloading$/,
    );
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[3]?.textContent?.trim())).toEqual([
      'Paris.',
      'Paris.',
    ]);
    failLoads.clear();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText(/^The chat's model is now Phi 3\.5 mini/);
    expect(screen.queryByText(/^The comparison stopped:/)).toBeNull();
    expect(screen.getByText('B closer on 0 of 1')).toBeInTheDocument();
  });

  // Broke: Compare ignored ?stallSeconds= and waited the default 10 s where the chat did not.
  it("a silent worker: given up after the page's ?stallSeconds=, as in the chat", async () => {
    const { user } = await renderCompare({ script: { silent: true, replyStallMs: 1500 } });
    await user.selectOptions(screen.getByLabelText('Model A (before)'), 'llama-3.2-1b');
    await user.selectOptions(screen.getByLabelText('Model B (after)'), 'llama-3.2-1b');
    await user.type(pasteBox(), 'Q?\tA.');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    expect(
      await screen.findByText(/no word from it for 1\.5 seconds/, {}, { timeout: 5000 }),
    ).toBeInTheDocument();
  });

  it('storage full when saving: the table stays and the error says why', async () => {
    const compare = await services.loadCompare();
    const full = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    const save = vi.spyOn(compare.store, 'save').mockRejectedValue(full);
    const { user } = await renderCompare({ script: { answers: () => 'x' } });
    await user.selectOptions(screen.getByLabelText('Model A (before)'), 'llama-3.2-1b');
    await user.selectOptions(screen.getByLabelText('Model B (after)'), 'llama-3.2-1b');
    await user.type(pasteBox(), 'Q?\tA.');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    await screen.findByText(/^The chat's model is now/);
    expect(save).toHaveBeenCalled();
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toContainEqual(
      expect.stringMatching(
        /^Browser storage is full, so this evaluation was not saved\. The table stays on screen/,
      ),
    );
    save.mockRestore();
    expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(2);
  });
});
