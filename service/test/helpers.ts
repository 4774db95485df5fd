/**
 * Starts the real service (Fastify on a free loopback port) with temporary data folders and the
 * fixture scripts as the only script root, and talks to it over real HTTP (node:http, so tests
 * can send any Host, Origin or Content-Type).
 */
import {
  execFileSync,
  spawn,
  spawnSync,
  type ChildProcess,
  type SpawnOptions,
} from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildService, type TrainingService } from '../src/app';
import { loadConfig, type ServiceConfig } from '../src/config';
import { RUN_MARKER } from '../src/proc-tree';
import {
  RunInfoSchema,
  type HubCache,
  type RunInfo,
  type TrainResponse,
} from '../../src/shared/training-api';

export const FIXTURES = resolve(import.meta.dirname, 'fixtures');
export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The project's environment (`npm run trainer:setup` fills it) and its interpreter. */
export const VENV_DIR = join(ROOT, '.venv');
export const VENV_PYTHON = join(VENV_DIR, 'bin', 'python');

/** Python: the model card and its record as a LoRA run writes them (argv[1]: the output folder). */
const WRITE_CARD = [
  'import os, sys, finetune, model_card',
  'out = sys.argv[1]',
  'args = finetune.parse_args(["--base_model", os.path.join(out, "merged"), "--data_file",',
  '                            "data.json", "--output_dir", out, "--no-web-export"])',
  'model_card.write_model_card(args, os.path.join(out, "merged"), [{"loss": 1.25, "step": 1}])',
].join('\n');

/** Writes into `outputDir` the model card and its record a trainer run leaves (model_card.py). */
export function writeRunCard(outputDir: string, python: string = VENV_PYTHON): void {
  execFileSync(python, ['-c', WRITE_CARD, outputDir], {
    cwd: join(ROOT, 'training'),
    env: { ...process.env, HF_HUB_OFFLINE: '1' },
  });
}

/** Whether VENV_PYTHON imports the trainer's packages: the tests of the real trainer need them. */
export function venvHasTrainer(timeout: number): boolean {
  return (
    existsSync(VENV_PYTHON) &&
    spawnSync(VENV_PYTHON, ['-c', 'import torch, transformers, peft, trl'], { timeout }).status ===
      0
  );
}
/** The tiny model that `npm run tiny-model` writes: the exports of hf-trainer.mjs copy it. */
export const TINY_MODEL = resolve(import.meta.dirname, '../../tests/fixtures/generated/tiny-model');
export const hasTinyModel = existsSync(join(TINY_MODEL, 'onnx', 'model.onnx'));

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
  /** The body's bytes as sent (`text` is them read as UTF-8). */
  body: Buffer;
}

export interface TestService {
  port: number;
  config: ServiceConfig;
  service: TrainingService;
  /** Every spawn the service made, in order. */
  spawned: {
    command: string;
    args: string[];
    env: NodeJS.ProcessEnv | undefined;
    cwd: string | URL | undefined;
  }[];
  /** A temporary folder outside every root. */
  outside: string;
  dataFile: string;
  request(options: RequestOptions): Promise<Reply>;
  train(body: Record<string, unknown>, headers?: Record<string, string>): Promise<Reply>;
  waitForEnd(id: string, timeoutMs?: number): Promise<RunInfo>;
  close(): Promise<void>;
}

export interface RequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
  port?: number;
}

export function rawRequest(port: number, options: RequestOptions): Promise<Reply> {
  const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[key.toLowerCase()];
    else headers[key.toLowerCase()] = value;
  }
  // node:http sends a DELETE's body neither chunked nor with a length unless told: its length.
  if (options.method === 'DELETE' && options.body !== undefined && !headers['content-length'])
    headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((ok, fail) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        setHost: false,
        // A fresh connection each time: a request the HTTP parser refuses closes its socket.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          let json: unknown = undefined;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          ok({ status: res.statusCode ?? 0, headers: res.headers, text, json, body });
        });
      },
    );
    req.on('error', fail);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export async function startTestService(
  overrides: Partial<ServiceConfig> = {},
): Promise<TestService> {
  const base = tempDir('training-service-');
  const data = join(base, 'data');
  const out = join(base, 'out');
  const outside = join(base, 'outside');
  for (const dir of [data, out, outside]) mkdirSync(dir, { recursive: true });
  const dataFile = join(data, 'input_data.json');
  writeFileSync(dataFile, JSON.stringify([{ prompt: 'q', completion: 'a' }]));
  const config = loadConfig(
    {
      TRAINING_PORT: '0',
      TRAINING_BASE_DIR: base,
      TRAINING_DATA_DIR: join(base, 'service-data'),
      TRAINING_SCRIPT_ROOTS: FIXTURES,
      TRAINING_DATA_ROOTS: data,
      TRAINING_OUTPUT_ROOTS: out,
      TRAINING_KILL_GRACE_MS: '300',
    },
    // GGUF asked after a run: the fixture exporter (stand-ins), unless a test asks for the real one.
    { ggufExportScript: join(FIXTURES, 'gguf-export.mjs'), ...overrides },
  );
  const spawned: TestService['spawned'] = [];
  const service = buildService(config, {
    spawn: (command: string, args: string[], options: SpawnOptions): ChildProcess => {
      spawned.push({ command, args, env: options.env, cwd: options.cwd });
      return spawn(command, args, options);
    },
  });
  const port = await service.listen();
  const request = (options: RequestOptions) => rawRequest(options.port ?? port, options);
  const test: TestService = {
    port,
    config,
    service,
    spawned,
    outside,
    dataFile,
    request,
    train: (body, headers = {}) =>
      request({
        method: 'POST',
        path: '/train',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(validBody(body)),
      }),
    async waitForEnd(id, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const reply = await request({ path: `/runs/${id}` });
        const run = reply.json as RunInfo;
        if (run.state !== 'running') return run;
        if (Date.now() > until) throw new Error(`run ${id} still running after ${timeoutMs} ms`);
        await sleep(25);
      }
    },
    async close() {
      await service.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
  return test;
}

/**
 * One service for the test file: started before its tests (handed to `use`), closed after them.
 */
export function serviceForFile(use: (svc: TestService) => void): void {
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await startTestService();
    use(svc);
  });
  afterAll(() => svc?.close());
}

let outputCounter = 0;

/**
 * A valid body for the fixture `args.mjs`, with `patch` applied (undefined removes a field). Each
 * body gets its own output folder (`out/run-N`): a folder holding a result is refused (409).
 */
export function validBody(patch: Record<string, unknown> = {}) {
  outputCounter += 1;
  const body: Record<string, unknown> = {
    script_path: join(FIXTURES, 'args.mjs'),
    output_dir: `out/run-${outputCounter}`,
    data_file: 'data/input_data.json',
    base_model: 'meta-llama/Llama-3.2-3B-Instruct',
    max_len: 256,
    repeat: 30,
    max_steps: 5,
    lr: 2e-4,
  };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  return body;
}

/** Running (a zombie left for a reaper that never comes in a container counts as dead). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

/** Live processes whose environment carries the run's marker, read from the process table. */
export function processesOfRun(id: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (env.includes(`${RUN_MARKER}=${id}`) && alive(pid)) found.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** The pids a tree fixture wrote to <output_dir>/pids.txt once it has `count` of them. */
export async function treePids(outputDir: string, count = 3): Promise<number[]> {
  const file = join(outputDir, 'pids.txt');
  for (let i = 0; i < 500; i++) {
    if (existsSync(file)) {
      const pids = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number);
      if (pids.length >= count) return pids;
    }
    await sleep(10);
  }
  throw new Error(`${file} never listed ${count} pids`);
}

export const postJson = (svc: TestService, path: string, body: unknown = {}) =>
  svc.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * Runs `action` with `env` added to the process environment (a run's trainer gets the service's
 * environment, so this is how a test sets a fixture's knobs), and puts the environment back after.
 */
export async function withEnv<T>(env: Record<string, string>, action: () => Promise<T>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await action();
  } finally {
    for (const key of Object.keys(env)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/**
 * Starts a run of the fixture `script` (with `env` added to the environment while it starts),
 * expects it accepted (200) and returns its id.
 */
export function startRun(
  svc: TestService,
  script: string,
  patch: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<string> {
  return withEnv(env, async () => {
    const reply = await svc.train({ script_path: join(FIXTURES, script), ...patch });
    expect(reply.status, reply.text).toBe(200);
    return (reply.json as TrainResponse).run_id;
  });
}

/**
 * Starts a run of the fixture hf-trainer.mjs (2 ms a step, with `env` added to the environment
 * while it starts), expects it accepted (200) and returns the run once it has ended.
 */
export async function trainToEnd(
  svc: TestService,
  patch: Record<string, unknown>,
  env: Record<string, string> = {},
) {
  const id = await startRun(svc, 'hf-trainer.mjs', patch, { FIXTURE_STEP_MS: '2', ...env });
  return RunInfoSchema.parse(await svc.waitForEnd(id));
}

/** DELETE /hub-cache/models/{id}: removes a base model from the service's Hub cache. */
export const removeCached = (svc: TestService, id: string) =>
  svc.request({
    method: 'DELETE',
    path: `/hub-cache/models/${id}`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });

/**
 * While a run (the fixture hang.mjs) trains from `id`, the Hub cache shows it in use and refuses
 * to remove it (409); the run is cancelled after, whatever happened.
 */
export async function expectHeldByRun(svc: TestService, id: string) {
  const run = await startRun(svc, 'hang.mjs', { base_model: id });
  try {
    const refused = await removeCached(svc, id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.text).toContain(`${id} is the base model of the run going now`);
    const cache = (await svc.request({ path: '/hub-cache' })).json as HubCache;
    expect(cache.models.find((m) => m.id === id)?.inUse).toBe(true);
  } finally {
    await postJson(svc, `/runs/${run}/cancel`);
    await svc.waitForEnd(run);
  }
}
