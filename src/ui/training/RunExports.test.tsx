import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { DEFAULT_TRAINING_URL, type RunExports } from '../../shared/training-api';
import { halfExport } from '../../shared/run-exports.fixtures';
import { renderPanel, serveTrainingMock } from '../../../tests/component/training-panel';

vi.mock('uplot', () => import('../../../tests/component/uplot-stub'));

const { mock, server } = serveTrainingMock({ stepsPerPoll: 40 });
afterEach(() => server.resetHandlers());
// The lazy chunks (and TanStack Query's) loaded once, not inside a test's wait.
beforeAll(async () => {
  await Promise.all([import('./RunExports'), import('./RunsList'), import('../query-client')]);
});

/**
 * Starts a run to its end: asked for GGUF `gguf` (the Advanced option, as the form keeps it), or
 * with the form's other saved fields `form`.
 */
async function finishedRun(gguf: string, form: Record<string, unknown> = { options: { gguf } }) {
  localStorage.setItem('training.form.v1', JSON.stringify(form));
  const user = userEvent.setup();
  renderPanel();
  await user.click(screen.getByRole('button', { name: 'Train Model' }));
  expect(
    await screen.findByText('✅ Training finished!', {}, { timeout: 10_000 }),
  ).toBeInTheDocument();
  return user;
}

describe("RunExports: an ended run's downloads", () => {
  it('the summary and the Runs list offer each GGUF file and the Modelfile as downloads from the service', async () => {
    await finishedRun('both');
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    const row = within(runs).getAllByRole('listitem')[0];
    if (!row) throw new Error('no run in the Runs list');
    const base = `${DEFAULT_TRAINING_URL}/runs/mock-run-1/exports/gguf`;
    // Twice: in the finished run's summary, then in its Runs list row.
    const links = async (name: RegExp) => {
      const found = await screen.findAllByRole('link', { name }, { timeout: 5000 });
      expect(found).toHaveLength(2);
      expect(row).toContainElement(found[1] ?? null);
      return found;
    };
    for (const q8 of await links(/^GGUF Q8_0/)) {
      expect(q8).toHaveTextContent('GGUF Q8_0 · 4.25kB · checked in llama.cpp');
      expect(q8).toHaveAttribute('href', `${base}/lora-Q8_0.gguf`);
      expect(q8).toHaveAttribute('download', 'lora-Q8_0.gguf');
      expect(q8.parentElement).toHaveTextContent('12/12 clear-margin tokens agree with PyTorch');
    }
    for (const f16 of await links(/^GGUF F16 · 8.00kB/))
      expect(f16).toHaveAttribute('href', `${base}/lora-F16.gguf`);
    for (const modelfile of await links(/^Ollama Modelfile$/))
      expect(modelfile).toHaveAttribute('href', `${base}/Modelfile`);
  });

  it('a file left out and a Modelfile left out say why; no GGUF at all says why', async () => {
    const answer: RunExports = {
      archives: [],
      gguf: halfExport('lora', { F16: 2048, Q8_0: 1024 }, "step 3: token 17 != PyTorch's 12"),
    };
    const url = `${DEFAULT_TRAINING_URL}/runs/:id/exports`;
    server.use(http.get(url, () => HttpResponse.json(answer)));
    await finishedRun('both');
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    expect(
      await within(runs).findByText(/^GGUF F16 · 2.00kB · left out: step 3: token 17/),
    ).toBeInTheDocument();
    expect(within(runs).queryByRole('link', { name: /GGUF F16/ })).not.toBeInTheDocument();
    expect(within(runs).getByRole('link', { name: /GGUF Q8_0/ })).toBeInTheDocument();
    expect(within(runs).getByText('No Ollama Modelfile: the model has no chat template'));

    server.use(
      http.get(url, () =>
        HttpResponse.json({
          archives: [],
          gguf: { ...answer.gguf, state: 'skipped', reason: 'no writer for gpt2', files: [] },
        } satisfies RunExports),
      ),
    );
    const user = userEvent.setup();
    await user.clear(screen.getByLabelText('Output directory'));
    await user.type(screen.getByLabelText('Output directory'), 'service-data/outputs/second');
    await user.click(screen.getByRole('button', { name: 'Train Model' }));
    await waitFor(
      () =>
        expect(within(runs).getAllByRole('listitem')[0]).toHaveTextContent(
          'No GGUF: no writer for gpt2',
        ),
      { timeout: 5000 },
    );
  });

  it('a run not asked for GGUF: the adapter and the merged model offered, no GGUF line', async () => {
    await finishedRun('none');
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    const list = await within(runs).findByRole('list', {
      name: 'Downloads: adapter and merged model',
    });
    const base = `${DEFAULT_TRAINING_URL}/runs/mock-run-1/exports/archive`;
    // The mock's zips hold empty stand-in files: their sizes are the zip's headers alone.
    const adapter = within(list).getByRole('link', { name: /^Adapter · / });
    expect(adapter).toHaveTextContent(/^Adapter · 788.00B · zip of 5 files$/);
    expect(adapter).toHaveAttribute('href', `${base}/adapter`);
    expect(adapter).toHaveAttribute('download', 'mock-run-1-adapter.zip');
    expect(adapter.parentElement).toHaveTextContent(
      /zip of 5 files · checked with PEFT: logits match merged\/ \(max 2\.4e-7\) \(PEFT/,
    );
    const merged = within(list).getByRole('link', { name: /^Merged model · / });
    expect(merged).toHaveTextContent(/^Merged model · 902.00B · zip of 6 files$/);
    expect(merged.parentElement).not.toHaveTextContent(/checked|not checked/);
    expect(merged).toHaveAttribute('download', 'mock-run-1-merged.zip');
    // No GGUF line: only the offer to write one.
    expect(within(runs).queryByRole('link', { name: /GGUF/ })).not.toBeInTheDocument();
    expect(within(runs).queryByText(/^No GGUF/)).not.toBeInTheDocument();
    expect(within(runs).getByRole('button', { name: 'Write GGUF' })).toBeInTheDocument();
  });

  it('Write GGUF after the run: the type chosen is asked for, shown as being written, then offered', async () => {
    const user = await finishedRun('none');
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    const row = within(runs).getAllByRole('listitem')[0];
    if (!row) throw new Error('no run in the Runs list');
    const form = within(row);
    await user.selectOptions(await form.findByLabelText('GGUF type'), 'F16 and Q8_0');
    await user.click(form.getByRole('button', { name: 'Write GGUF' }));
    expect(await form.findByRole('status')).toHaveTextContent(
      /^Run mock-run-1's GGUF F16 and Q8_0 is being written \(since /,
    );
    expect(
      await form.findByRole('link', { name: /^GGUF Q8_0 · / }, { timeout: 5000 }),
    ).toHaveAttribute(
      'href',
      `${DEFAULT_TRAINING_URL}/runs/mock-run-1/exports/gguf/lora-Q8_0.gguf`,
    );
    expect(form.getByRole('link', { name: /^GGUF F16 · / })).toBeInTheDocument();
    expect(form.queryByRole('button', { name: 'Write GGUF' })).not.toBeInTheDocument();
  });

  // Regression: a script that failed at once (no output folder) showed "Exports: … no longer exists".
  it('a failed run whose output folder was never made: no error about its exports', async () => {
    mock.setScenario('fail-run');
    const missing = "Run mock-run-1's output folder /data/out no longer exists (deleted or moved?)";
    let asked = 0;
    server.use(
      http.get(`${DEFAULT_TRAINING_URL}/runs/:id/exports`, () => {
        asked += 1;
        return HttpResponse.json({ error: missing }, { status: 404 });
      }),
    );
    const user = userEvent.setup();
    renderPanel();
    await user.click(screen.getByRole('button', { name: 'Train Model' }));
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 10_000 });
    await waitFor(() =>
      expect(within(runs).getAllByRole('listitem')[0]).toHaveTextContent(/failed/),
    );
    await waitFor(() => expect(asked).toBeGreaterThan(0));
    expect(screen.queryByText(/^Exports:/)).not.toBeInTheDocument();
    expect(screen.queryAllByRole('alert').map((alert) => alert.textContent)).not.toContainEqual(
      expect.stringContaining('no longer exists'),
    );
  });

  it("Write GGUF refused: the service's sentence is shown, the form stays", async () => {
    const refusal = 'Run run-9 is training; write GGUF once it has ended (one at a time)';
    server.use(
      http.post(`${DEFAULT_TRAINING_URL}/runs/:id/exports`, () =>
        HttpResponse.json({ error: refusal }, { status: 409 }),
      ),
    );
    const user = await finishedRun('none');
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    const row = within(runs).getAllByRole('listitem')[0];
    if (!row) throw new Error('no run in the Runs list');
    await user.click(await within(row).findByRole('button', { name: 'Write GGUF' }));
    expect(await within(row).findByRole('alert')).toHaveTextContent(`Write GGUF: ${refusal}`);
    expect(within(row).getByRole('button', { name: 'Write GGUF' })).toBeEnabled();
  });

  describe("the adapter's check with PEFT", () => {
    const url = `${DEFAULT_TRAINING_URL}/runs/:id/exports`;
    const adapter = { kind: 'adapter', files: 5 } as const;
    /** The listing with `archive` as the adapter, and a merged model offered. */
    const serve = (archive: RunExports['archives'][number]) =>
      server.use(
        http.get(url, () =>
          HttpResponse.json({
            archives: [
              archive,
              { kind: 'merged', name: 'm.zip', bytes: 2048, files: 6, reason: null, check: null },
            ],
            gguf: {
              state: 'none',
              reason: 'x',
              files: [],
              modelfile: null,
              modelfile_skipped: null,
            },
          } satisfies RunExports),
        ),
      );

    it('an adapter from a run before the check is offered, labelled not checked', async () => {
      serve({ ...adapter, name: 'a.zip', bytes: 1024, reason: null, check: null });
      await finishedRun('none');
      const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
      const link = await within(runs).findByRole('link', { name: /^Adapter · / });
      expect(link.parentElement).toHaveTextContent(/zip of 5 files · not checked \(PEFT/);
    });

    it('an adapter whose check failed is not offered: the reason is shown', async () => {
      const failure = "Run mock-run-1's LoRA adapter failed its check with PEFT: logits differ";
      const check = { ok: false, max_logit_difference: 0.28, reason: 'logits differ' };
      serve({ ...adapter, name: null, bytes: null, reason: failure, check });
      await finishedRun('none');
      const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
      expect(await within(runs).findByText(`Adapter: ${failure}`)).toBeInTheDocument();
      expect(within(runs).queryByRole('link', { name: /^Adapter/ })).not.toBeInTheDocument();
      expect(within(runs).getByRole('link', { name: /^Merged model/ })).toBeInTheDocument();
    });
  });

  it('a merged model deleted after the run says so with its path; a full run lists no adapter', async () => {
    const url = `${DEFAULT_TRAINING_URL}/runs/:id/exports`;
    const gone =
      "Run mock-run-1's merged model folder /data/out/merged no longer exists (deleted or moved?)";
    server.use(
      http.get(url, () =>
        HttpResponse.json({
          archives: [
            {
              kind: 'adapter',
              name: null,
              bytes: null,
              files: 0,
              reason: 'A full fine-tune has no LoRA adapter',
              check: null,
            },
            { kind: 'merged', name: null, bytes: null, files: 0, reason: gone, check: null },
          ],
          gguf: {
            state: 'none',
            reason: 'not asked',
            files: [],
            modelfile: null,
            modelfile_skipped: null,
          },
        } satisfies RunExports),
      ),
    );
    await finishedRun('none', { method: 'full' });
    const runs = await screen.findByRole('region', { name: 'Runs' }, { timeout: 5000 });
    expect(await within(runs).findByText(`Merged model: ${gone}`)).toBeInTheDocument();
    expect(within(runs).queryByText(/Adapter|LoRA adapter/)).not.toBeInTheDocument();
    expect(within(runs).queryByRole('link', { name: /Merged model/ })).not.toBeInTheDocument();
  });
});
