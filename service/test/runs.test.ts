/** Real runs of the fixture trainer scripts: output, progress, failure, cancel, hostile output. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogsResponse, RunInfo, TrainResponse } from '../../src/shared/training-api';
import { FIXTURES, sleep, startTestService, serviceForFile, type TestService } from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const error = (json: unknown) => (json as { error: string }).error;

async function run(script: string, patch: Record<string, unknown> = {}) {
  const reply = await svc.train({ script_path: join(FIXTURES, script), ...patch });
  expect(reply.status, reply.text).toBe(200);
  return (reply.json as TrainResponse).run_id;
}

async function logs(id: string, query = 'tail=10') {
  const reply = await svc.request({ path: `/logs/${id}?${query}` });
  expect(reply.status, reply.text).toBe(200);
  return reply.json as LogsResponse;
}

/** Running (a zombie left for a reaper that never comes in a container counts as dead). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

describe('a run that succeeds', () => {
  it('spawns with an argument array and reports progress to the end', async () => {
    const base = '$(touch /tmp/pwned); `id`; rm -rf x';
    const id = await run('args.mjs', { base_model: base, max_steps: 20, output_dir: 'out/lora' });
    const spawned = svc.spawned.at(-1);
    expect(spawned?.command).toBe(process.execPath);
    expect(spawned?.args).toEqual([
      join(FIXTURES, 'args.mjs'),
      '--base_model',
      base,
      '--data_file',
      svc.dataFile,
      '--output_dir',
      join(svc.config.outputRoots[0] ?? '', 'lora'),
      '--max_len',
      '256',
      '--repeat',
      '30',
      '--max_steps',
      '20',
      '--lr',
      '0.0002',
    ]);
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'succeeded', exit_code: 0, current: 20, total: 20 });
    expect(ended.progress).toBe(100);
    expect(ended.ended_at).not.toBeNull();
    const { lines, total } = await logs(id);
    expect(lines).toHaveLength(10);
    expect(lines.at(-2)).toBe('step 20/20');
    expect(lines.at(-1)).toBe('saved adapter');
    expect(total).toBe(22);
    // The shell metacharacters reached the script as one literal argument.
    const first = await logs(id, 'offset=0&limit=1');
    expect(first.lines[0]).toContain(JSON.stringify(base).slice(1, -1).slice(0, 12));
    expect(existsSync('/tmp/pwned')).toBe(false);
    // The list shows it, newest first.
    const list = (await svc.request({ path: '/runs' })).json as { runs: RunInfo[] };
    expect(list.runs[0]?.id).toBe(id);
  });

  it('pages through the log with offset/limit', async () => {
    const id = await run('args.mjs', { max_steps: 30 });
    await svc.waitForEnd(id);
    const page = await logs(id, 'offset=1&limit=3');
    expect(page.lines).toEqual([
      expect.stringMatching(/^step 1\/30/),
      expect.stringMatching(/^step 2\/30/),
      expect.stringMatching(/^step 3\/30/),
    ]);
    expect(page.next_offset).toBe(4);
    expect((await logs(id, 'offset=500&limit=5')).lines).toEqual([]);
    const both = await svc.request({ path: `/logs/${id}?tail=5&offset=1` });
    expect(both.status).toBe(400);
    expect(error(both.json)).toBe('Use either tail=N or offset=K&limit=L, not both');
  });

  it('keeps tail bounded and reads old lines from disk for a long log', async () => {
    process.env.FIXTURE_LINES = '25000';
    const id = await run('lines.mjs');
    delete process.env.FIXTURE_LINES;
    await svc.waitForEnd(id);
    const tail = await logs(id, 'tail=3');
    expect(tail.lines).toEqual([
      'line 24998 step 24998/25000 loss 0.1234',
      'line 24999 step 24999/25000 loss 0.1234',
      'line 25000 step 25000/25000 loss 0.1234',
    ]);
    expect(tail.total).toBe(25000);
    // Line 5000 (index 4999) is long out of the 1,000-line ring: it comes from the file.
    const old = await logs(id, 'offset=4999&limit=2');
    expect(old.lines).toEqual([
      'line 5000 step 5000/25000 loss 0.1234',
      'line 5001 step 5001/25000 loss 0.1234',
    ]);
    const file = readFileSync(join(svc.config.dataDir, 'runs', id, 'output.log'), 'utf8');
    expect(file.split('\n')).toHaveLength(25001);
  });
});

describe('a run that fails', () => {
  it('exits non-zero at once: failed with its exit code and stderr in the log', async () => {
    const id = await run('fail.mjs');
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'failed', exit_code: 3, signal: null });
    expect((await logs(id)).lines).toEqual(['error: CUDA is not available on this machine']);
  });

  it('an interpreter that does not exist: 500 with the reason, recorded as failed', async () => {
    const other = await startTestService({ python: '/nonexistent/python3' });
    try {
      const reply = await other.train({ script_path: join(FIXTURES, 'hello.py') });
      expect(reply.status).toBe(500);
      expect(error(reply.json)).toBe(
        'Could not start /nonexistent/python3 (set TRAINING_PYTHON): spawn /nonexistent/python3 ENOENT',
      );
      const list = (await other.request({ path: '/runs' })).json as { runs: RunInfo[] };
      expect(list.runs[0]).toMatchObject({ state: 'failed' });
      // The failed start does not block the next one.
      expect((await other.train({})).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('one active run at a time, cancel', () => {
  it('a second start gets 409; a silent hang is cancelled with its whole process group', async () => {
    const id = await run('hang.mjs');
    const second = await svc.train({});
    expect(second.status).toBe(409);
    expect(error(second.json)).toMatch(
      new RegExp(`^A training run is already in progress \\(run ${id}, started .*\\)\\. Cancel it`),
    );
    const spawnedBefore = svc.spawned.length;
    const out = ((await svc.request({ path: `/runs/${id}` })).json as RunInfo).output_dir;
    const pidFile = join(out, 'grandchild.pid');
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await sleep(10);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(grandchild)).toBe(true);
    const cancel = await svc.request({
      method: 'POST',
      path: `/runs/${id}/cancel`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ state: 'cancelled', signal: 'SIGTERM' });
    await sleep(50);
    expect(alive(grandchild), 'the grandchild in the process group died too').toBe(false);
    expect(svc.spawned.length).toBe(spawnedBefore);
    // Cancelling again: not running any more.
    const again = await svc.request({
      method: 'POST',
      path: `/runs/${id}/cancel`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(409);
    expect(error(again.json)).toBe(`Run ${id} is not running (it is cancelled)`);
  });

  it('a script that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const id = await run('stubborn.mjs');
    // Its SIGTERM handler is installed once it has printed its first line.
    for (let i = 0; i < 400 && (await logs(id)).lines.length === 0; i++) await sleep(10);
    const started = Date.now();
    const cancel = await svc.request({
      method: 'POST',
      path: `/runs/${id}/cancel`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(cancel.json).toMatchObject({ state: 'cancelled', signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const { lines } = await logs(id);
    expect(lines.join('\n')).toMatch(/SIGTERM ignored/);
    expect(lines.at(-1)).toMatch(/SIGKILL sent/);
  });
});

describe('hostile output', () => {
  it('a 10 MB line is cut to a bounded length; the service stays responsive', async () => {
    const id = await run('big-line.mjs');
    const health = await svc.request({ path: '/health' });
    expect(health.status).toBe(200);
    const ended = await svc.waitForEnd(id);
    expect(ended.state).toBe('succeeded');
    const { lines } = await logs(id);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBeLessThan(svc.config.maxLineChars + 100);
    expect(lines[0]).toMatch(/ … \[line cut: 10477568 more characters\]$/);
    expect(lines[1]).toBe('step 1/1');
  });

  it('invalid UTF-8 becomes U+FFFD, ANSI and control codes are removed', async () => {
    const id = await run('garbage.mjs');
    await svc.waitForEnd(id);
    const { lines } = await logs(id);
    expect(lines).toEqual([
      'bad \uFFFD\uFFFD\uFFFD(',
      'red bold green',
      'step 2/4',
      'title gone evil bell',
    ]);
    expect((await svc.request({ path: `/runs/${id}` })).json).toMatchObject({
      current: 2,
      total: 4,
      progress: 50,
    });
  });

  it("tqdm carriage-return redraws collapse to the final line, which is not the run's progress", async () => {
    const id = await run('tqdm.mjs');
    const ended = await svc.waitForEnd(id);
    // Only `step N/M` lines count: a library bar once read as the run's progress.
    expect(ended).toMatchObject({ state: 'succeeded', current: null, total: null, progress: 0 });
    const { lines } = await logs(id);
    expect(lines).toHaveLength(2);
    expect(lines).toContain('done');
    expect(lines.find((l) => l.includes('%|'))).toMatch(/^100%\|██████████\| 50\/50 \[/);
  });

  it('counts only `step N/M` lines: retries, export checks and library bars do not', async () => {
    const id = await run('not-steps.mjs');
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'succeeded', current: 3, total: 8, progress: 37.5 });
    const list = (await svc.request({ path: '/runs' })).json as { runs: RunInfo[] };
    expect(list.runs.find((r) => r.id === id)).toMatchObject({ current: 3, total: 8 });
  });

  it('progress never exceeds 100% nor goes backwards', async () => {
    const id = await run('backwards.mjs');
    const ended = await svc.waitForEnd(id);
    // 5/10 → 50, 3/10 stays 50, 15/10 → 100 (clamped), 2/10 stays 100.
    expect(ended).toMatchObject({ progress: 100, current: 2, total: 10 });
  });
});
