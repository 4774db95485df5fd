/**
 * How runs end, against the real service with fixture trainers: cancel reaches every process of
 * the run (own sessions, SIGTERM ignored, launcher already gone) and answers only when the process
 * table shows none left; exit-code and saved-result rules; the saving phase; TRAINING_LAUNCHER.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunInfo, RunList, TrainResponse } from '../../src/shared/training-api';
import { parseLauncher } from '../src/config';
import {
  FIXTURES,
  alive,
  postJson,
  processesOfRun,
  sleep,
  startRun,
  startTestService,
  treePids,
  serviceForFile,
  type TestService,
} from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const run = (script: string, patch: Record<string, unknown> = {}, env = {}) =>
  startRun(svc, script, patch, env);

const runInfo = async (id: string) => (await svc.request({ path: `/runs/${id}` })).json as RunInfo;
const logText = async (id: string) =>
  ((await svc.request({ path: `/logs/${id}?tail=50` })).json as { lines: string[] }).lines.join(
    '\n',
  );

describe('cancel ends the whole process tree', () => {
  it('workers in their own sessions that ignore SIGTERM, and their children', async () => {
    const id = await run('tree.mjs');
    const pids = await treePids((await runInfo(id)).output_dir);
    expect(pids.every(alive)).toBe(true);
    expect(processesOfRun(id).sort()).toEqual([...pids].sort());
    const started = Date.now();
    const cancel = await postJson(svc, `/runs/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.json).toMatchObject({ state: 'cancelled', phase: null });
    // Two of the three ignore SIGTERM: only the SIGKILL after the grace period (300 ms) ends them.
    expect(Date.now() - started).toBeGreaterThanOrEqual(svc.config.killGraceMs);
    // The answer came only once none was left: checked at once, from the process table.
    expect(pids.filter(alive), 'processes of the run left after cancel').toEqual([]);
    expect(processesOfRun(id)).toEqual([]);
    expect(await logText(id)).toMatch(/SIGKILL sent/);
  });

  it('the launcher already gone, its workers left behind', async () => {
    const id = await run('tree.mjs', {}, { FIXTURE_TREE: 'exit' });
    const [launcher = 0, ...workers] = await treePids((await runInfo(id)).output_dir);
    for (let i = 0; i < 200 && alive(launcher); i++) await sleep(10);
    expect(alive(launcher)).toBe(false);
    expect(workers.every(alive)).toBe(true);
    // The run lives while its workers do; a page attaching now finds it active.
    for (let i = 0; i < 100 && !(await logText(id)).includes('launcher exited'); i++)
      await sleep(20);
    expect(await logText(id)).toMatch(/the launcher exited \(code 0\); 2 processes of the run/);
    const list = (await svc.request({ path: '/runs' })).json as RunList;
    expect(list.active).toBe(id);
    const cancel = await postJson(svc, `/runs/${id}/cancel`);
    expect(cancel.json).toMatchObject({ state: 'cancelled', exit_code: 0 });
    expect(workers.filter(alive)).toEqual([]);
    expect(processesOfRun(id)).toEqual([]);
    expect(((await svc.request({ path: '/runs' })).json as RunList).active).toBeNull();
  });
});

describe('how a run ends', () => {
  it('last step printed, process still saving: phase "saving" at 100 %, then succeeded', async () => {
    const id = await run(
      'hf-trainer.mjs',
      { max_steps: 4 },
      { FIXTURE_STEP_MS: '5', FIXTURE_SAVE_MS: '700', FIXTURE_WEB: 'none' },
    );
    let saving: RunInfo | null = null;
    for (let i = 0; i < 300 && !saving; i++) {
      const info = await runInfo(id);
      if (info.phase === 'saving') saving = info;
      else await sleep(10);
    }
    expect(saving).toMatchObject({ state: 'running', progress: 100, current: 4, total: 4 });
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'succeeded', phase: null, exit_code: 0 });
    expect(processesOfRun(id)).toEqual([]);
  });

  it('last step printed, then exit 1: failed', async () => {
    const id = await run(
      'hf-trainer.mjs',
      { max_steps: 3 },
      { FIXTURE_STEP_MS: '1', FIXTURE_EXIT: '1', FIXTURE_WEB: 'none' },
    );
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'failed', exit_code: 1, progress: 100 });
  });

  it('exit 0 with nothing saved in the output folder: failed, saying so', async () => {
    const id = await run('backwards-nosave.mjs');
    const ended = await svc.waitForEnd(id);
    expect(ended.state).toBe('failed');
    expect(ended.exit_code).toBe(0);
    expect(ended.error).toMatch(/exited with code 0 but saved nothing in .*run-\d+/);
  });
});

describe('TRAINING_BASE_EXPORTS', () => {
  it("tells the trainer where base exports are kept: the data folder's base-exports/ by default", async () => {
    for (const [overrides, expected] of [
      [{}, 'base-exports'],
      [{ baseExportsDir: '/srv/base-exports' }, '/srv/base-exports'],
    ] as const) {
      const other = await startTestService(overrides);
      try {
        const reply = await other.train({ max_steps: 1 });
        expect(reply.status, reply.text).toBe(200);
        await other.waitForEnd((reply.json as TrainResponse).run_id);
        const env = other.spawned.at(-1)?.env;
        expect(env?.TRAINING_BASE_EXPORTS).toBe(
          expected.startsWith('/') ? expected : join(other.config.dataDir, expected),
        );
      } finally {
        await other.close();
      }
    }
  });
});

describe('TRAINING_LAUNCHER', () => {
  it('places its argv before the script, as an argument array', async () => {
    const launcher = [process.execPath, join(FIXTURES, 'launcher.mjs'), '--nproc_per_node=2'];
    const other = await startTestService({ launcher });
    try {
      const reply = await other.train({ max_steps: 2 });
      expect(reply.status, reply.text).toBe(200);
      const id = (reply.json as TrainResponse).run_id;
      const ended = await other.waitForEnd(id);
      expect(ended.state).toBe('succeeded');
      const spawned = other.spawned.at(-1);
      expect(spawned?.command).toBe(process.execPath);
      const script = join(FIXTURES, 'args.mjs');
      const expected = ['--nproc_per_node=2', script, '--base_model'];
      expect(spawned?.args.slice(0, 4)).toEqual([launcher[1], ...expected]);
      const first = (
        (await other.request({ path: `/logs/${id}?offset=0&limit=2` })).json as {
          lines: string[];
        }
      ).lines;
      const argv = JSON.parse(first[0]?.replace(/^LAUNCHER /, '') ?? '[]') as string[];
      expect(argv.slice(0, 3)).toEqual(expected);
      expect(argv).toContain('--max_steps');
      expect(first[1]).toMatch(/^ARGS /); // the script itself ran under the launcher
    } finally {
      await other.close();
    }
  });

  it.each([
    ['[]', 'an empty array'],
    ['"torchrun"', 'a string'],
    ['torchrun --standalone', 'not JSON'],
    ['["torchrun", ""]', 'an empty argument'],
    ['["torchrun", 4]', 'a number'],
    ['{"cmd": "torchrun"}', 'an object'],
  ])('refuses %s (%s), naming TRAINING_LAUNCHER', (value) => {
    expect(() => parseLauncher(value)).toThrow(/^TRAINING_LAUNCHER must be a JSON array/);
  });

  it('an invalid value stops the service from starting, with the message', () => {
    const root = resolve(import.meta.dirname, '..', '..');
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'service/src/main.ts')],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, TRAINING_PORT: '0', TRAINING_LAUNCHER: 'torchrun --standalone' },
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/TRAINING_LAUNCHER must be a JSON array of non-empty strings/);
    expect(result.stdout).not.toMatch(/Training service on/);
  });
});
