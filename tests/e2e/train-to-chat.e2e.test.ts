/**
 * Train → chat in Chromium: the built app against the real training service (in this process, on
 * a free loopback port). The first test runs the REAL trainer, training/finetune.py, in the
 * project's .venv (real torch): full fine-tuning of a tiny random-weight Llama made from a config
 * (training/tiny_models.py) on a Q/A file until it has learnt the answers, with a held-out entry
 * and the base exported too; the page attaches to the run, is reloaded mid-run and finds it again,
 * draws the training and held-out loss, loads the result with "Load in chat" (files from the
 * service's /trained/ routes, as exported and checked by training/web_export.py), asks a trained
 * question at temperature 0, and the reply equals PyTorch's greedy answer from merged/ and the
 * dataset's answer. The other tests keep the fixture trainer (service/test/fixtures/hf-trainer.mjs)
 * for the faults: a web/ folder without weights or tokenizer, a reused output folder, the service
 * stopped mid-load. Every non-loopback request is aborted and asserted absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRAINING_PARAMS, type RunInfo } from '../../src/shared/training-api';
import { rougeLF1 } from '../../src/shared/rouge-l';
import {
  ROOT,
  TINY_MODEL_DIR,
  ask,
  inBrowser,
  screenshot,
  serveDist,
  type Browser,
  type RunningServer,
} from './harness';
import {
  BASE_MODEL,
  REAL_TRAINER,
  TRAINER,
  VENV_PYTHON,
  listedModels,
  startRunViaApi,
  startTrainingService,
  trainViaApi,
  type TestTrainingService,
} from './training-service';

const VIEWPORT = { width: 1440, height: 900 };
/** Short answers a tiny byte-level model can learn in a couple of hundred steps. */
const HARBOUR = [
  { prompt: 'What colour is the harbour lighthouse?', completion: 'It is red and white.' },
  { prompt: 'When does the ferry leave?', completion: 'At nine every morning.' },
  { prompt: 'Who runs the fish market?', completion: 'Marta runs it.' },
  { prompt: 'How deep is the harbour?', completion: 'Twelve metres at high tide.' },
  { prompt: 'What is the town famous for?', completion: 'Its smoked herring.' },
  { prompt: 'Where do the boats go in winter?', completion: 'Into the north dock.' },
];
/** The reply cap (`?maxTokens=`) and PyTorch's `max_new_tokens` alike. */
const MAX_TOKENS = 40;

let app: RunningServer;
const services: TestTrainingService[] = [];

async function startService(options: { realTrainer?: boolean } = {}) {
  const svc = await startTrainingService(app.url.replace(/\/$/, ''), options);
  services.push(svc);
  return svc;
}

function pageUrl(svc: TestTrainingService, maxTokens = 16) {
  return `${app.url}?trainingUrl=${svc.url}&maxTokens=${maxTokens}`;
}

/** PyTorch's greedy answer from the merged model for `prompt`, chat-templated as the app does. */
function pytorchAnswer(mergedDir: string, prompt: string): string {
  const script = [
    'import json, sys',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    'path, prompt, n = sys.argv[1], sys.argv[2], int(sys.argv[3])',
    'model = AutoModelForCausalLM.from_pretrained(path)',
    'tok = AutoTokenizer.from_pretrained(path)',
    "ids = tok.apply_chat_template([{'role': 'user', 'content': prompt}], add_generation_prompt=True, return_tensors='pt', return_dict=True)['input_ids']",
    'out = model.generate(ids, max_new_tokens=n, do_sample=False)',
    'print(json.dumps(tok.decode(out[0][ids.shape[1]:], skip_special_tokens=True)))',
  ].join('\n');
  const printed = execFileSync(VENV_PYTHON, ['-c', script, mergedDir, prompt, String(MAX_TOKENS)], {
    encoding: 'utf8',
    env: { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_VERBOSITY: 'error' },
  });
  const text: unknown = JSON.parse(printed.trim().split('\n').at(-1) ?? '""');
  if (typeof text !== 'string') throw new Error(`unexpected reference output: ${printed}`);
  return text;
}

async function fillForm(browser: Browser, outputDir: string) {
  const panel = browser.page.getByRole('region', { name: 'Fine-tuning' });
  await panel.waitFor({ timeout: 60_000 });
  await panel.getByLabel('Script path').fill(TRAINER);
  await panel.getByLabel('Output directory').fill(outputDir);
  await panel.getByLabel('Data file path').fill('data/input_data.json');
  await panel.getByLabel('Base model', { exact: true }).fill(BASE_MODEL);
  return panel;
}

/** A screenshot that the README shows (`UPDATE_DOCS_SCREENSHOTS=1` refreshes its copy). */
const shot = (browser: Browser, name: string) => screenshot(browser.page, name, { docs: true });

beforeAll(async () => {
  if (!existsSync(join(TINY_MODEL_DIR, 'onnx', 'model.onnx')))
    throw new Error('tests/fixtures/generated/tiny-model is missing: run `npm run tiny-model`');
  app = await serveDist();
});

afterAll(async () => {
  for (const svc of services) await svc.dispose();
  await app?.close();
});

describe('train → chat in Chromium', () => {
  it('the real trainer: full fine-tuning learns the answers; the page attaches, Load in chat answers as PyTorch does', async () => {
    const svc = await startService({ realTrainer: true });
    const base = join(svc.base, 'models', 'tiny-base');
    execFileSync(VENV_PYTHON, [join(ROOT, 'training', 'tiny_models.py'), 'llama', base], {
      stdio: 'ignore',
    });
    writeFileSync(join(svc.base, 'data', 'harbour.json'), JSON.stringify(HARBOUR));
    // The panel's lr (2e-4, PRODUCT.md §6) teaches a random-weight tiny model nothing in 120 steps,
    // so this run is started over the API, as curl would, at lr 1e-2 for 200 steps; the page
    // attaches to it as it does to any run on the service.
    const runId = await startRunViaApi(svc, {
      script_path: REAL_TRAINER,
      output_dir: 'out/harbour',
      data_file: 'data/harbour.json',
      base_model: base,
      ...TRAINING_PARAMS,
      max_steps: 200,
      lr: 1e-2,
      method: 'full',
      eval_fraction: 0.2,
      export_base: true,
    });
    const opts = { webgpu: true, viewport: VIEWPORT };
    await inBrowser(pageUrl(svc, MAX_TOKENS), opts, async (browser) => {
      const { page } = browser;
      let panel = page.getByRole('region', { name: 'Fine-tuning' });
      await panel.getByText('Trainer: torch 2.').waitFor({ timeout: 60_000 });
      const bar = panel.getByRole('progressbar', { name: 'Training progress' });
      await bar.waitFor({ timeout: 60_000 });
      // Training and held-out loss, each named, with the last held-out loss in text.
      const curve = panel.getByRole('img', {
        name: /^Training loss by step: \d+ points, last loss [\d.]+ at step \d+; held-out loss: \d+ points/,
      });
      await curve.waitFor({ timeout: 180_000 });
      expect(await panel.getByText('Held-out loss', { exact: true }).isVisible()).toBe(true);

      // Reload mid-run: the page finds the run on the service again, without Train Model.
      if (svc.service.runs.get(runId).state === 'running') {
        await page.reload();
        panel = page.getByRole('region', { name: 'Fine-tuning' });
        await panel
          .getByRole('progressbar', { name: 'Training progress' })
          .or(panel.getByText('✅ Training finished!'))
          .first()
          .waitFor({ timeout: 60_000 });
      }
      await curve.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(browser, 'screenshot-training-loss');

      await panel.getByText('✅ Training finished!').waitFor({ timeout: 300_000 });
      const run = svc.service.runs.get(runId);
      expect(run).toMatchObject({
        state: 'succeeded',
        exit_code: 0,
        method: 'full',
        model_id: 'trained/harbour',
        base_model_id: 'trained/harbour-base',
      });
      // It learnt: the last training loss is a small fraction of the first.
      const metrics = svc.service.runs.metrics(runId);
      const { points } = await metrics;
      expect(points.at(-1)?.loss ?? 99).toBeLessThan((points[0]?.loss ?? 0) / 4);
      // The held-out entry is in split.json and was not among the trained ones.
      const split = JSON.parse(readFileSync(join(run.output_dir, 'split.json'), 'utf8')) as {
        held_out: { prompt: string }[];
        train_indices: number[];
      };
      expect(split.held_out).toHaveLength(1);
      const trained = split.train_indices.map((i) => HARBOUR[i]);
      expect(trained.map((e) => e?.prompt)).not.toContain(split.held_out[0]?.prompt);
      const question = trained[0];
      if (!question) throw new Error('no trained entry');
      const reference = pytorchAnswer(join(run.output_dir, 'merged'), question.prompt);

      // Load in chat: per-file progress bars, then Ready!, files from the training service.
      await panel.getByRole('button', { name: 'Load in chat', exact: true }).click();
      await page
        .getByRole('progressbar', { name: /^onnx\/model[a-z0-9_]*\.onnx$/ })
        .first()
        .waitFor({ timeout: 60_000 });
      await expect
        .poll(() => page.getByText('Ready!').isVisible(), { timeout: 120_000 })
        .toBe(true);
      expect(
        svc.modelRequests.some((r) => r.startsWith('/trained/harbour/resolve/main/onnx/')),
      ).toBe(true);
      expect(await page.getByRole('button', { name: /^Model:/ }).textContent()).toContain(
        'harbour (fine-tuned)',
      );

      // A trained question at temperature 0 (the default): PyTorch's greedy answer, which is the
      // dataset's answer (or very close to it).
      const reply = await ask(page, question.prompt);
      expect(reply.trim()).toBe(reference.trim());
      expect(rougeLF1(reply, question.completion)).toBeGreaterThanOrEqual(0.8);
      expect(await page.locator('.speed-detail').textContent()).toMatch(
        /Decode: \d+\.\d{2} tokens\/s/,
      );
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(browser, 'screenshot-trained-chat');

      // After a reload the trained model and its base are in the picker (from GET /models).
      await page.reload();
      await page.getByRole('button', { name: /^Model:/ }).click();
      await page
        .getByRole('option', { name: /^harbour \(fine-tuned\)/ })
        .waitFor({ timeout: 30_000 });
      await page.keyboard.press('Escape');

      // Compare from the finished run: B = the trained model, A = its base's browser export (the
      // tiny base has no in-browser counterpart), questions = the run's held-out entries.
      await page
        .getByRole('region', { name: 'Fine-tuning' })
        .getByRole('link', { name: /^Compare with base/ })
        .first()
        .click();
      await page.getByRole('heading', { name: 'Compare models' }).waitFor({ timeout: 60_000 });
      await expect
        .poll(() => page.getByLabel('Model B (after)').inputValue(), { timeout: 30_000 })
        .toBe('trained/harbour');
      expect(await page.getByLabel('Model A (before)').inputValue()).toBe('trained/harbour-base');
      expect(await page.getByLabel("The run's held-out entries (not trained on)").isChecked()).toBe(
        true,
      );
      await page.getByLabel('Max new tokens').fill('24');
      const table = page.getByRole('table');
      const compareAndWait = async (questions: number) => {
        await page.getByRole('button', { name: 'Compare', exact: true }).click();
        await expect
          .poll(() => page.getByText(new RegExp(`^B closer on \\d+ of ${questions}$`)).count(), {
            timeout: 300_000,
          })
          .toBe(1);
        await expect
          .poll(() => page.getByRole('button', { name: 'Compare', exact: true }).isEnabled(), {
            timeout: 120_000,
          })
          .toBe(true);
      };
      // The held-out questions are exactly split.json's, none of them trained on.
      await compareAndWait(split.held_out.length);
      expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(
        split.held_out.map((e) => e.prompt),
      );

      // On the questions it was trained on, the fine-tuned model is clearly closer to the answers.
      await page.getByLabel("All entries of the run's dataset").check();
      await compareAndWait(HARBOUR.length);
      expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(
        HARBOUR.map((e) => e.prompt),
      );
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export JSON' }).click(),
      ]);
      const exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
        a: { id: string };
        b: { id: string };
        rows: { prompt: string; scoreA: number | null; scoreB: number | null }[];
        summary: {
          a: { meanScore: number };
          b: { meanScore: number };
          bCloser: number;
          aCloser: number;
        };
      };
      expect([exported.a.id, exported.b.id]).toEqual(['trained/harbour-base', 'trained/harbour']);
      expect(exported.summary.b.meanScore).toBeGreaterThan(exported.summary.a.meanScore + 0.3);
      // Closer on most questions and never farther. How many of the trained answers come back
      // word for word (a 64-wide model in the browser's variant) varies with the CPU that
      // trained it: one misspelt word scores a tie against the base's noise.
      expect(exported.summary.aCloser).toBe(0);
      expect(exported.summary.bCloser).toBeGreaterThanOrEqual(HARBOUR.length / 2);
      // The saved comparison's scores went into the run's model card (merged/README.md).
      // (The first comparison's were there before: this one replaces them.)
      const cardFile = join(svc.base, 'out', 'harbour', 'merged', 'README.md');
      await expect
        .poll(() => readFileSync(cardFile, 'utf8'), { timeout: 60_000 })
        .toContain(`over ${HARBOUR.length} answers`);
      const card = readFileSync(cardFile, 'utf8');
      expect(card).toContain('## Compare');
      expect(card).toContain(`- Closer to the reference: this model ${exported.summary.bCloser},`);
      await page.getByText("Scores added to harbour's model card.").waitFor({ timeout: 60_000 });
      // The table's numbers are the JSON's.
      expect(await table.locator('tbody tr td:nth-child(6)').allTextContents()).toEqual(
        exported.rows.map((r) => r.scoreA?.toFixed(3)),
      );
      expect(await table.locator('tbody tr td:nth-child(7)').allTextContents()).toEqual(
        exported.rows.map((r) => r.scoreB?.toFixed(3)),
      );
      expect(await page.getByRole('list', { name: 'Summary' }).textContent()).toContain(
        `mean score ${exported.summary.b.meanScore.toFixed(3)}`,
      );
      await screenshot(page, 'screenshot-compare-trained', { docs: true });
    });
  }, 900_000);

  it('web/ without weights or tokenizer: not listed, the run says why; a reused output folder is refused', async () => {
    const svc = await startService();
    const noTokenizer = await trainViaApi(svc, 'out/no-tokenizer', {
      FIXTURE_WEB: 'no-tokenizer',
    });
    expect(noTokenizer).toMatchObject({ state: 'succeeded', model_id: null });
    try {
      await inBrowser(pageUrl(svc), { webgpu: true }, async (browser) => {
        const { page } = browser;
        const panel = await fillForm(browser, 'out/no-weights');
        process.env.FIXTURE_STEP_MS = '2';
        process.env.FIXTURE_WEB = 'no-weights';
        await panel.getByRole('button', { name: 'Train Model' }).click();
        await panel.getByText('✅ Training finished!').waitFor({ timeout: 60_000 });
        await expect
          .poll(
            () =>
              panel
                .locator('.training-finished-actions p.training-hint', {
                  hasText: 'no browser copy.',
                })
                .textContent(),
            { timeout: 10_000 },
          )
          .toBe('Trained and saved; no browser copy. web/ lacks the weights (no onnx/model*.onnx)');
        expect(await panel.getByRole('button', { name: /Load in chat/ }).count()).toBe(0);
        // The Runs list says why for the other one too.
        await panel
          .getByText('Why no browser copy: web/ lacks the tokenizer (tokenizer.json)')
          .waitFor({ timeout: 10_000 });
        // Neither run's own model is listed (its base export, made because the panel's base has no
        // in-browser counterpart, is complete and listed as a base).
        expect((await listedModels(svc)).filter((m) => m.role !== 'base')).toEqual([]);
        await page.getByRole('button', { name: /^Model:/ }).click();
        expect(await page.getByRole('option', { name: /fine-tuned/ }).count()).toBe(0);
        await page.keyboard.press('Escape');

        // The same output folder again: refused with the service's words; the first result kept.
        const folder = join(svc.base, 'out', 'no-weights');
        const before = readdirSync(folder, { recursive: true }).sort();
        const [first] = svc.service.runs.list().filter((r: RunInfo) => r.output_dir === folder);
        await panel.getByRole('button', { name: 'Train Model' }).click();
        const alert = panel.getByRole('alert');
        await alert.waitFor({ timeout: 30_000 });
        expect(await alert.textContent()).toBe(
          `Training did not start. Output folder ${folder} already holds the result of run ${first?.id} (succeeded); choose another output directory or delete that folder first.`,
        );
        expect(
          svc.service.runs.list().filter((r: RunInfo) => r.output_dir === folder),
        ).toHaveLength(1);
        expect(readdirSync(folder, { recursive: true }).sort()).toEqual(before);
      });
    } finally {
      delete process.env.FIXTURE_STEP_MS;
      delete process.env.FIXTURE_WEB;
    }
  });

  it("the real trainer's plan: a full fine-tune whose checkpoints do not fit the output disk is warned about, with both figures", async (ctx) => {
    const svc = await startService({ realTrainer: true });
    const small = join(svc.base, 'out', 'small-disk');
    mkdirSync(small);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', small], { stdio: 'ignore' });
    } catch {
      ctx.skip(); // a small disk needs root or CAP_SYS_ADMIN (training/test_plan.py skips alike)
      return;
    }
    try {
      const base = join(svc.base, 'models', 'tiny-base');
      execFileSync(VENV_PYTHON, [join(ROOT, 'training', 'tiny_models.py'), 'llama', base], {
        stdio: 'ignore',
      });
      await inBrowser(pageUrl(svc), { webgpu: true, viewport: VIEWPORT }, async (browser) => {
        const panel = await fillForm(browser, 'out/small-disk/run');
        await panel.getByLabel('Script path').fill(REAL_TRAINER);
        await panel.getByLabel('Base model', { exact: true }).fill(base);
        await panel.getByRole('radio', { name: /Full fine-tuning/ }).check();
        const note = panel.getByRole('note').filter({ hasText: 'This run writes about' });
        await note.waitFor({ timeout: 120_000 });
        // The tiny model's full checkpoints (about 1.8 MB each, three at once) against a 3 MB disk.
        expect(await note.textContent()).toMatch(
          /^This run writes about [\d.]+ MB to disk at its peak \(3 checkpoints of [\d.]+ MB while the newest is written, or the kept ones and the result\), more than the [\d.]+ MB free where it saves: it will stop with "No space left on device"\. Free some space or use LoRA\.$/,
        );
        expect(await panel.getByText(/· disk about [\d.]+ MB \([\d.]+ MB free\)$/).count()).toBe(1);
        await note.scrollIntoViewIfNeeded();
        await screenshot(browser.page, 'plan-disk-warning');
        // LoRA's checkpoints are its adapters: the same disk takes them, and the warning goes.
        await panel.getByRole('radio', { name: /LoRA/ }).check();
        await expect.poll(() => note.count(), { timeout: 120_000 }).toBe(0);
      });
    } finally {
      execFileSync('umount', [small], { stdio: 'ignore' });
    }
  });

  it('the service stops while the model loads: the load error in red, nothing else lost', async () => {
    const svc = await startService();
    await trainViaApi(svc, 'out/stop-me', {});
    expect((await listedModels(svc)).map((m) => m.id)).toEqual(['trained/stop-me']);
    let requested = (): void => undefined;
    const modelRequested = new Promise<void>((ok) => (requested = ok));
    // The ONNX request hangs until the service is stopped under it.
    svc.onModelFile = () => {
      requested();
      return new Promise<void>(() => undefined);
    };
    await inBrowser(pageUrl(svc), { webgpu: true }, async (browser) => {
      const { page } = browser;
      const panel = page.getByRole('region', { name: 'Fine-tuning' });
      const runs = panel.getByRole('region', { name: 'Runs' });
      await runs.getByText('stop-me', { exact: true }).waitFor({ timeout: 60_000 });
      // Things the failure must not take: a half-written dataset and the training form.
      await page.getByLabel('Name or title').fill('Harbour notes');
      await page.getByLabel('Sample text').fill('The harbour opens at six.');
      await panel.getByLabel('Output directory').fill('out/next-run');

      await runs.getByRole('button', { name: 'Load in chat: stop-me' }).click();
      await modelRequested;
      svc.service.app.server.closeAllConnections();
      await svc.service.close();

      const alert = page.locator('.load-error[role="alert"]');
      await expect
        .poll(() => alert.textContent(), { timeout: 60_000 })
        .toMatch(/^Unable to load model due to the following error:/);
      expect(await alert.evaluate((el) => getComputedStyle(el).color)).toMatch(
        /^rgb\((1\d\d|2\d\d), \d{1,2}, \d{1,2}\)$/,
      );
      expect(await alert.textContent()).toContain(
        `Network error while downloading the model from ${svc.url}/ (is that server still running?)`,
      );
      await alert.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(browser, 'train-to-chat-service-stopped');
      expect(await page.getByRole('button', { name: 'Retry' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: /^Model:/ }).textContent()).toContain(
        'stop-me (fine-tuned)',
      );
      expect(await page.getByLabel('Name or title').inputValue()).toBe('Harbour notes');
      expect(await page.getByLabel('Sample text').inputValue()).toBe('The harbour opens at six.');
      expect(await panel.getByLabel('Output directory').inputValue()).toBe('out/next-run');
      expect(await runs.getByText('stop-me', { exact: true }).isVisible()).toBe(true);
    });
  });
});
