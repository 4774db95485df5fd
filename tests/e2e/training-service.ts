/**
 * The real training service for browser tests, in the test's process on a free loopback port:
 * fixture trainers (service/test/fixtures) as its only script root, a base folder of its own with
 * data/input_data.json and out/, the app's origin allowed; the origins it sees are recorded. Its
 * trained-model file route is
 * instrumented: requests are recorded, the ONNX weights are sent in slices (so the page's
 * per-file progress bar can be seen) and a test can hold the weights request (`onModelFile`).
 */
import { expect } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { buildService, type TrainingService } from '../../service/src/app';
import { loadConfig, type ServiceConfig } from '../../service/src/config';
import {
  ModelListSchema,
  RunInfoSchema,
  TRAINING_PARAMS,
  TrainResponseSchema,
  type RunInfo,
} from '../../src/shared/training-api';
import { ROOT } from './harness';

export const FIXTURES = join(ROOT, 'service', 'test', 'fixtures');
/** Prints Hugging Face Trainer lines, then copies the tiny model into <output_dir>/web/. */
export const TRAINER = join(FIXTURES, 'hf-trainer.mjs');
export const BASE_MODEL = 'onnx-community/Llama-3.2-1B-Instruct-q4f16';

export interface TestTrainingService {
  service: TrainingService;
  url: string;
  /** Its base folder (output_dir `out/x` is `${base}/out/x`). */
  base: string;
  /** Paths of the trained-model file requests (/trained/…), in order. */
  modelRequests: string[];
  /** Every `Origin` header a request to the service carried. */
  seenOrigins: Set<string>;
  /** Called when the browser asks for a trained model's ONNX weights (before they are sent). */
  onModelFile: (() => Promise<void>) | null;
  /** Stops the service (if still running) and removes its folder. */
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The real trainer, training/finetune.py, and the project's .venv interpreter that runs it. */
export const REAL_TRAINER = join(ROOT, 'training', 'finetune.py');
export const VENV_PYTHON = join(ROOT, '.venv', 'bin', 'python');

export async function startTrainingService(
  allowedOrigin: string,
  options: { realTrainer?: boolean; config?: Partial<ServiceConfig> } = {},
): Promise<TestTrainingService> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'train-chat-e2e-')));
  mkdirSync(join(base, 'data'));
  mkdirSync(join(base, 'out'));
  writeFileSync(
    join(base, 'data', 'input_data.json'),
    JSON.stringify([{ prompt: 'What is it?', completion: 'A test. It is short.' }]),
  );
  const config = loadConfig(
    {
      TRAINING_PORT: '0',
      TRAINING_BASE_DIR: base,
      TRAINING_DATA_DIR: join(base, 'service-data'),
      // With the real trainer, training/ is a script root too (and .venv its interpreter).
      TRAINING_SCRIPT_ROOTS: options.realTrainer
        ? [FIXTURES, join(ROOT, 'training')].join(delimiter)
        : FIXTURES,
      TRAINING_DATA_ROOTS: join(base, 'data'),
      TRAINING_OUTPUT_ROOTS: join(base, 'out'),
      TRAINING_ALLOWED_ORIGINS: allowedOrigin,
    },
    options.config,
  );
  const service = buildService(config);
  const entry: TestTrainingService = {
    service,
    url: '',
    base,
    modelRequests: [],
    seenOrigins: new Set(),
    onModelFile: null,
    dispose: async () => {
      await service.close().catch(() => undefined);
      rmSync(base, { recursive: true, force: true });
    },
  };
  service.app.addHook('onRequest', async (request) => {
    if (request.headers.origin) entry.seenOrigins.add(request.headers.origin);
    if (!request.url.startsWith('/trained/')) return;
    entry.modelRequests.push(request.url);
    // The weights themselves (not the one-byte size probe transformers.js sends first).
    if (request.url.endsWith('/onnx/model.onnx') && !request.headers.range && entry.onModelFile)
      await entry.onModelFile();
  });
  // The ONNX weights in 10 slices, 120 ms apart, so the per-file progress bar can be seen moving.
  service.app.addHook('onSend', async (request, _reply, payload) => {
    // Whichever variant loads (q4 without shader-f16, fp32 for the fixture's tiny model).
    if (!/\/onnx\/model[a-z0-9_]*\.onnx$/.test(request.url) || !(payload instanceof Readable))
      return payload;
    return Readable.from(slowly(payload));
  });
  entry.url = `http://127.0.0.1:${await service.listen()}`;
  return entry;
}

async function* slowly(source: Readable): AsyncGenerator<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(chunk as Buffer);
  const all = Buffer.concat(parts);
  const size = Math.ceil(all.length / 10);
  for (let at = 0; at < all.length; at += size) {
    yield all.subarray(at, at + size);
    await sleep(120);
  }
}

/**
 * Starts a 5-step run of the fixture trainer over HTTP (as curl would) and waits for its end;
 * `env` (e.g. FIXTURE_WEB) is in the environment the trainer is spawned with.
 */
export async function trainViaApi(
  svc: TestTrainingService,
  outputDir: string,
  env: Record<string, string>,
): Promise<RunInfo> {
  const saved = { ...process.env };
  Object.assign(process.env, { FIXTURE_STEP_MS: '1', ...env });
  try {
    const reply = await fetch(`${svc.url}/train`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        script_path: TRAINER,
        output_dir: outputDir,
        data_file: 'data/input_data.json',
        base_model: BASE_MODEL,
        ...TRAINING_PARAMS,
        max_steps: 5,
      }),
    });
    expect(reply.status, await reply.clone().text()).toBe(200);
    const { run_id } = TrainResponseSchema.parse(await reply.json());
    for (let i = 0; i < 200; i++) {
      const run = RunInfoSchema.parse(await (await fetch(`${svc.url}/runs/${run_id}`)).json());
      if (run.state !== 'running') return run;
      await sleep(50);
    }
    throw new Error(`run ${run_id} did not end`);
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

/** Starts a run over HTTP (as curl would) with this body; resolves with its id at once. */
export async function startRunViaApi(
  svc: TestTrainingService,
  body: Record<string, unknown>,
): Promise<string> {
  const reply = await fetch(`${svc.url}/train`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(reply.status, await reply.clone().text()).toBe(200);
  return TrainResponseSchema.parse(await reply.json()).run_id;
}

export async function listedModels(svc: TestTrainingService) {
  return ModelListSchema.parse(await (await fetch(`${svc.url}/models`)).json()).models;
}
