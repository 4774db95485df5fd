/**
 * The service as `npm run service` starts it (tsx service/src/main.ts in its own process):
 * killed with SIGKILL during a run, restarted on the same data folder, it ends what the old run
 * left running (checked in the process table), lists the run as interrupted and still serves its
 * output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunInfo, RunList, TrainResponse } from '../../src/shared/training-api';
import {
  FIXTURES,
  ROOT,
  alive,
  processesOfRun,
  rawRequest,
  sleep,
  tempDir,
  treePids,
} from './helpers';

const base = tempDir('training-restart-');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => ok(port));
    });
  });
}

async function startProcess(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'service/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TRAINING_PORT: String(port),
      TRAINING_BASE_DIR: base,
      TRAINING_DATA_DIR: join(base, 'service-data'),
      TRAINING_SCRIPT_ROOTS: FIXTURES,
      FIXTURE_STEP_MS: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  for (let i = 0; i < 600; i++) {
    if (output.includes('Training service on')) return child;
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`service did not start: ${output}`);
}

describe('service restart', () => {
  it('lists a run cut off by a crash as interrupted, with its output', async () => {
    const port = await freePort();
    const first = await startProcess(port);
    const dataDir = join(base, 'service-data');
    writeFileSync(join(dataDir, 'data.json'), '[]');
    const train = (script: string, output = 'service-data/out') =>
      rawRequest(port, {
        method: 'POST',
        path: '/train',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          script_path: join(FIXTURES, script),
          output_dir: output,
          data_file: 'service-data/data.json',
          base_model: 'm',
          max_len: 8,
          repeat: 1,
          max_steps: 100_000,
          lr: 0.001,
        }),
      });
    const reply = await train('args.mjs');
    expect(reply.status, reply.text).toBe(200);
    const id = (reply.json as TrainResponse).run_id;
    for (let i = 0; i < 200; i++) {
      const logs = await rawRequest(port, { path: `/logs/${id}?tail=1` });
      if ((logs.json as { lines: string[] }).lines.some((l) => l.startsWith('step '))) break;
      await sleep(25);
    }
    const record = JSON.parse(readFileSync(join(dataDir, 'runs', id, 'run.json'), 'utf8')) as {
      pid: number;
    };
    first.kill('SIGKILL');
    await new Promise((ok) => first.once('exit', ok));

    const second = await startProcess(port);
    const run = (await rawRequest(port, { path: `/runs/${id}` })).json as RunInfo;
    expect(run.state).toBe('interrupted');
    expect(run.error).toMatch(/stopped while this run was going/);
    expect(run.current).toBeGreaterThan(0);
    expect(run.total).toBe(100_000);
    const logs = (await rawRequest(port, { path: `/logs/${id}?tail=10` })).json as {
      lines: string[];
    };
    expect(logs.lines.at(-1)).toMatch(/^step \d+\/100000/);
    const list = (await rawRequest(port, { path: '/runs' })).json as { runs: RunInfo[] };
    expect(list.runs.map((r) => [r.id, r.state])).toEqual([[id, 'interrupted']]);
    expect(alive(record.pid)).toBe(false);
    // Nothing is active any more: a new run may start.
    const again = await train('fail.mjs');
    expect(again.status, again.text).toBe(200);

    // A run whose workers outlive the crash (own sessions, SIGTERM ignored, no pipe to lose).
    for (let i = 0; i < 200; i++) {
      const list = (await rawRequest(port, { path: '/runs' })).json as RunList;
      if (list.active === null) break;
      await sleep(25);
    }
    const tree = await train('tree.mjs', 'service-data/tree-out');
    expect(tree.status, tree.text).toBe(200);
    const treeId = (tree.json as TrainResponse).run_id;
    const pids = await treePids(join(dataDir, 'tree-out'));
    second.kill('SIGKILL');
    await new Promise((ok) => second.once('exit', ok));
    await sleep(100);
    expect(pids.filter(alive), 'the crash alone ends nothing').toEqual(pids);

    await startProcess(port);
    // The restart ended them (pid + start time, or the run marker) before answering anything.
    expect(pids.filter(alive), 'processes of the old run left after the restart').toEqual([]);
    expect(processesOfRun(treeId)).toEqual([]);
    const ended = (await rawRequest(port, { path: `/runs/${treeId}` })).json as RunInfo;
    expect(ended.state).toBe('interrupted');
    expect(ended.error).toMatch(/3 leftover processes were ended at the next start/);
  });
});
