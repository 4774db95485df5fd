/**
 * POST /runs/{id}/resume with the fixture trainer checkpoints.mjs (checkpoint-N folders with a
 * trainer_state.json, `--resume` starts after the newest): a failed, a cancelled and an
 * interrupted run continue as the same run, with the same log and loss curve; every refusal says
 * why.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildService } from '../src/app';
import type { LogsResponse, MetricsResponse, RunInfo } from '../../src/shared/training-api';
import {
  postJson,
  rawRequest,
  sleep,
  startRun,
  startTestService,
  serviceForFile,
  type TestService,
} from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const FIXTURE_KEYS = ['FIXTURE_FAIL_AT', 'FIXTURE_HOLD_AT', 'FIXTURE_CHECKPOINT_EVERY'];
afterEach(() => {
  for (const key of FIXTURE_KEYS) delete process.env[key];
});

const error = (json: unknown) => (json as { error: string }).error;

/** Starts checkpoints.mjs for `max_steps` steps with the fixture's knobs in the environment. */
const start = (maxSteps: number, env: Record<string, string> = {}, service = svc) =>
  startRun(service, 'checkpoints.mjs', { max_steps: maxSteps }, env);

const resume = (id: string, service: { port: number } = svc) =>
  rawRequest(service.port, {
    method: 'POST',
    path: `/runs/${id}/resume`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });

async function logLines(id: string, port = svc.port) {
  const reply = await rawRequest(port, { path: `/logs/${id}?offset=0&limit=1000` });
  return (reply.json as LogsResponse).lines;
}

async function lossSteps(id: string, port = svc.port) {
  const reply = await rawRequest(port, { path: `/runs/${id}/metrics` });
  return (reply.json as MetricsResponse).points.map((p) => p.step);
}

/** Waits until the run's log has the fixture's `holding` line (it stopped at FIXTURE_HOLD_AT). */
async function untilHolding(id: string, port = svc.port) {
  for (let i = 0; i < 800; i++) {
    if ((await logLines(id, port)).includes('holding')) return;
    await sleep(10);
  }
  throw new Error(`run ${id} never reached FIXTURE_HOLD_AT`);
}

describe('resuming a run', () => {
  it('failed at step 5 with checkpoint 4: resumes as the same run, continuing steps and curve', async () => {
    const id = await start(8, { FIXTURE_FAIL_AT: '5' });
    const failed = await svc.waitForEnd(id);
    expect(failed).toMatchObject({ state: 'failed', checkpoint_step: 4, resumable: true });
    const data = readFileSync(svc.dataFile);
    expect(failed.data_sha256).toBe(createHash('sha256').update(data).digest('hex'));
    const firstArgs = svc.spawned.at(-1)?.args ?? [];

    const reply = await resume(id);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ id, state: 'running', resumable: false });
    expect(svc.spawned.at(-1)?.args).toEqual([...firstArgs, '--resume']);
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'succeeded', current: 8, total: 8, progress: 100 });
    expect(ended.resumable).toBe(false);

    const lines = await logLines(id);
    const resumedAt = lines.indexOf('[service] resumed from step 4');
    expect(resumedAt).toBeGreaterThan(lines.indexOf('error: CUDA out of memory (fixture)'));
    expect(lines[resumedAt + 1]).toMatch(/^resuming from step 4 \(.*checkpoint-4\)$/);
    expect(lines.at(-1)).toMatch(/^saved to /);
    // The first attempt's points, then the resumed ones from the checkpoint's next step.
    expect(await lossSteps(id)).toEqual([1, 2, 3, 4, 5, 5, 6, 7, 8]);
    const list = (await svc.request({ path: '/runs' })).json as { runs: RunInfo[] };
    expect(list.runs.filter((r) => r.id === id)).toHaveLength(1);
  });

  it('cancelled after checkpoint 2: resumes and finishes', async () => {
    const id = await start(6, { FIXTURE_HOLD_AT: '3' });
    await untilHolding(id);
    const cancelled = await postJson(svc, `/runs/${id}/cancel`);
    expect(cancelled.json).toMatchObject({
      state: 'cancelled',
      checkpoint_step: 2,
      resumable: true,
    });
    const reply = await resume(id);
    expect(reply.status, reply.text).toBe(200);
    expect(await svc.waitForEnd(id)).toMatchObject({ state: 'succeeded', current: 6, total: 6 });
    expect(await logLines(id)).toContain('[service] resumed from step 2');
  });

  it('interrupted by a service stop: the next service lists it resumable and resumes it', async () => {
    const own = await startTestService();
    const id = await start(6, { FIXTURE_HOLD_AT: '4' }, own);
    await untilHolding(id, own.port);
    // A second service on the same data folder, after the first one stopped mid-run.
    await own.service.close();
    const next = buildService(own.config);
    const port = await next.listen();
    try {
      const run = (await rawRequest(port, { path: `/runs/${id}` })).json as RunInfo;
      expect(run).toMatchObject({ state: 'interrupted', checkpoint_step: 4, resumable: true });
      const reply = await resume(id, { port });
      expect(reply.status, reply.text).toBe(200);
      for (let i = 0; i < 400; i++) {
        const now = (await rawRequest(port, { path: `/runs/${id}` })).json as RunInfo;
        if (now.state !== 'running') break;
        await sleep(25);
      }
      const ended = (await rawRequest(port, { path: `/runs/${id}` })).json as RunInfo;
      expect(ended).toMatchObject({ state: 'succeeded', current: 6, total: 6 });
      expect(await lossSteps(id, port)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await next.close();
      await own.close();
    }
  });
});

describe('resume refusals', () => {
  it('an unknown run: 404', async () => {
    const reply = await resume('no-such-run');
    expect(reply.status).toBe(404);
    expect(error(reply.json)).toBe('No run with id "no-such-run"');
  });

  it('a run without a checkpoint: 409 naming the folder', async () => {
    const id = await start(4, { FIXTURE_FAIL_AT: '1', FIXTURE_CHECKPOINT_EVERY: '0' });
    const failed = await svc.waitForEnd(id);
    expect(failed).toMatchObject({ state: 'failed', checkpoint_step: null, resumable: false });
    const reply = await resume(id);
    expect(reply.status).toBe(409);
    expect(error(reply.json)).toBe(
      `Run ${id} has no checkpoint to resume from (${join(failed.output_dir, 'checkpoints')})`,
    );
  });

  it('a data file that changed since the start: 409, start a new run', async () => {
    const id = await start(6, { FIXTURE_FAIL_AT: '3' });
    await svc.waitForEnd(id);
    const before = readFileSync(svc.dataFile);
    writeFileSync(svc.dataFile, JSON.stringify([{ prompt: 'q2', completion: 'a2' }]));
    try {
      const reply = await resume(id);
      expect(reply.status).toBe(409);
      expect(error(reply.json)).toBe(
        `The data file ${svc.dataFile} changed since run ${id} started; resume would train on different data. Start a new run.`,
      );
    } finally {
      writeFileSync(svc.dataFile, before);
    }
    // The same bytes again: the same data, so it resumes.
    expect((await resume(id)).status).toBe(200);
    expect(await svc.waitForEnd(id)).toMatchObject({ state: 'succeeded' });
  });

  it('while a run is active (the run itself or another): 409', async () => {
    const failedId = await start(6, { FIXTURE_FAIL_AT: '3' });
    await svc.waitForEnd(failedId);
    const holding = await start(6, { FIXTURE_HOLD_AT: '3' });
    await untilHolding(holding);
    try {
      const other = await resume(failedId);
      expect(other.status).toBe(409);
      expect(error(other.json)).toMatch(
        new RegExp(`^A training run is already in progress \\(run ${holding}, started `),
      );
      const itself = await resume(holding);
      expect(itself.status).toBe(409);
    } finally {
      await postJson(svc, `/runs/${holding}/cancel`);
    }
  });

  it('a run that succeeded: 409, nothing to resume', async () => {
    const id = await start(2);
    const done = await svc.waitForEnd(id);
    expect(done).toMatchObject({ state: 'succeeded', checkpoint_step: 2, resumable: false });
    const reply = await resume(id);
    expect(reply.status).toBe(409);
    expect(error(reply.json)).toBe(
      `Run ${id} succeeded: its result is in ${done.output_dir}, so there is nothing to resume. Start a new run to train further.`,
    );
  });
});
