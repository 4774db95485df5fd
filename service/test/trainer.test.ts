/**
 * The trainer's environment: GET /trainer reports the interpreter, each package's version (or
 * missing) and the device; POST /trainer/setup runs the fixed set-up command (here a fixture),
 * streams its lines, runs one at a time, is refused while a run is active, blocks new runs while
 * it goes, and keeps the Origin/Host/Content-Type rules of every state change.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TRAINER_PACKAGES,
  TrainerInfoSchema,
  TrainerSetupSchema,
  type TrainerSetup,
} from '../../src/shared/training-api';
import {
  FIXTURES,
  VENV_DIR,
  VENV_PYTHON,
  postJson,
  sleep,
  startTestService,
  type TestService,
} from './helpers';

const SETUP = [process.execPath, join(FIXTURES, 'setup.mjs')];
const hasSystemPython = spawnSync('python3', ['--version']).status === 0;

const error = (json: unknown) => (json as { error: string }).error;

async function waitSetup(svc: TestService): Promise<TrainerSetup> {
  for (;;) {
    const setup = TrainerSetupSchema.parse((await svc.request({ path: '/trainer/setup' })).json);
    if (setup.state !== 'running') return setup;
    await sleep(25);
  }
}

describe.skipIf(!existsSync(VENV_PYTHON))('GET /trainer with the project environment', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ python: null, venvDir: VENV_DIR });
  });
  afterAll(() => svc.close());

  it('names the .venv interpreter, every package version and the device', async () => {
    const reply = await svc.request({ path: '/trainer' });
    expect(reply.status, reply.text).toBe(200);
    const info = TrainerInfoSchema.parse(reply.json);
    expect(info.source).toBe('venv');
    expect(info.python).toContain('.venv');
    expect(info.missing).toEqual([]);
    for (const name of TRAINER_PACKAGES) expect(info.packages[name]).toMatch(/^\d+\.\d+/);
    expect(info.device?.kind).toBe('cpu'); // this machine has no GPU
    expect(info.setup.state).toBe('idle');
  });
});

describe('GET /trainer without the packages', () => {
  let svc: TestService;
  afterEach(() => svc.close());

  it('an interpreter that does not exist: every package missing, nothing thrown', async () => {
    svc = await startTestService({ python: '/nonexistent/python3' });
    const info = TrainerInfoSchema.parse((await svc.request({ path: '/trainer' })).json);
    expect(info).toMatchObject({ source: 'env', python: null, device: null });
    expect(info.missing).toEqual([...TRAINER_PACKAGES]);
  });

  it.skipIf(!hasSystemPython)(
    'no venv: the system python3, its missing packages named',
    async () => {
      svc = await startTestService({ python: null, venvDir: '/nonexistent/venv' });
      const info = TrainerInfoSchema.parse((await svc.request({ path: '/trainer' })).json);
      expect(info.source).toBe('system');
      expect(info.python_version).toMatch(/^3\./);
      // The system interpreter here has no torch; whatever it lacks is listed as missing.
      expect(info.missing).toEqual(TRAINER_PACKAGES.filter((p) => info.packages[p] === null));
    },
  );
});

describe('POST /trainer/setup', () => {
  let svc: TestService;
  const saved = { ...process.env };
  beforeAll(async () => {
    svc = await startTestService({ setupCommand: SETUP, venvDir: '/tmp/llm-studio-test-venv' });
  });
  afterAll(() => svc.close());
  afterEach(async () => {
    await waitSetup(svc);
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  });

  it('runs the fixed set-up, streams its lines, and says when it succeeded', async () => {
    const reply = await postJson(svc, '/trainer/setup', {});
    expect(reply.status, reply.text).toBe(202);
    expect(TrainerSetupSchema.parse(reply.json).state).toBe('running');
    const setup = await waitSetup(svc);
    expect(setup).toMatchObject({ state: 'succeeded', exit_code: 0, error: null });
    expect(setup.lines[0]).toBe('Creating the trainer environment in /tmp/llm-studio-test-venv');
    expect(setup.lines).toContain('Processing transformers');
    const info = TrainerInfoSchema.parse((await svc.request({ path: '/trainer' })).json);
    expect(info.setup.state).toBe('succeeded');
  });

  it('one at a time: a second request while it runs is 409', async () => {
    process.env.FIXTURE_SETUP_MS = '300';
    expect((await postJson(svc, '/trainer/setup', {})).status).toBe(202);
    const second = await postJson(svc, '/trainer/setup', {});
    expect(second.status).toBe(409);
    expect(error(second.json)).toMatch(/already being set up/);
  });

  it('no run starts while it runs (409, saying why)', async () => {
    process.env.FIXTURE_SETUP_MS = '300';
    expect((await postJson(svc, '/trainer/setup', {})).status).toBe(202);
    const reply = await svc.train({});
    expect(reply.status).toBe(409);
    expect(error(reply.json)).toMatch(/trainer is being set up/);
  });

  it('refused while a run is active', async () => {
    process.env.FIXTURE_STEP_MS = '100';
    const run = await svc.train({ max_steps: 20 });
    expect(run.status, run.text).toBe(200);
    const reply = await postJson(svc, '/trainer/setup', {});
    expect(reply.status).toBe(409);
    expect(error(reply.json)).toMatch(/training run is in progress/);
    const id = (run.json as { run_id: string }).run_id;
    await postJson(svc, `/runs/${id}/cancel`, {});
  });

  it('python3-venv missing: failed, with the one sentence that names the package', async () => {
    process.env.FIXTURE_SETUP_EXIT = '3';
    expect((await postJson(svc, '/trainer/setup', {})).status).toBe(202);
    const setup = await waitSetup(svc);
    expect(setup).toMatchObject({ state: 'failed', exit_code: 3 });
    expect(setup.error).toMatch(/python3-venv/);
  });

  it('a failed install names the last error line', async () => {
    process.env.FIXTURE_SETUP_EXIT = '1';
    await postJson(svc, '/trainer/setup', {});
    const setup = await waitSetup(svc);
    expect(setup.error).toBe(
      'The set-up failed (exit code 1): ERROR: No matching distribution found for torch',
    );
  });

  it('takes no options: any field is 400, nothing runs', async () => {
    const reply = await postJson(svc, '/trainer/setup', { packages: ['evil-package'] });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/unknown field: packages/);
  });

  it('other web sites cannot start it: foreign Origin 403, non-JSON 415, foreign Host 403', async () => {
    const foreign = await svc.request({
      method: 'POST',
      path: '/trainer/setup',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    const form = await svc.request({
      method: 'POST',
      path: '/trainer/setup',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    const rebound = await svc.request({
      method: 'POST',
      path: '/trainer/setup',
      headers: { 'content-type': 'application/json', host: `evil.example:${svc.port}` },
      body: '{}',
    });
    expect(rebound.status).toBe(403);
    const setup = TrainerSetupSchema.parse((await svc.request({ path: '/trainer/setup' })).json);
    expect(setup.state).not.toBe('running');
  });
});
