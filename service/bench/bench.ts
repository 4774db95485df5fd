/**
 * `npm run bench:service`: GET /logs/{id}?tail=10 latency (median, p99) on a run with 1,000 and
 * with 1,000,000 log lines, then with 50 concurrent pollers, and the service's resident memory;
 * GET /runs/{id}/metrics on a run with 100,000 metric points (full and incremental); serving a
 * 500 MB model file (throughput, peak RSS while streaming it).
 * The service runs as `npm run service` does (its own process), on a free loopback port, with a
 * temporary data folder; the load scripts are service/test/fixtures/lines.mjs and metrics.mjs.
 * `--smoke`: 100 and 1,000 lines, 5 pollers, 1,000 metric points, a 5 MiB file, few requests
 * (CI: it runs end to end; the figures mean nothing).
 * `--file-vs REV [--runs N]`: only the model file, this checkout's service against REV's (a git
 * worktree), alternated N times (default 3), with the ratio.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'service', 'test', 'fixtures');
const SMOKE = process.argv.includes('--smoke');
const SEQUENTIAL = SMOKE ? 50 : 2000;
const POLLERS = SMOKE ? 5 : 50;
const PER_POLLER = SMOKE ? 10 : 100;
const LOG_SIZES = SMOKE ? [100, 1000] : [1000, 1_000_000];
const METRIC_POINTS = SMOKE ? 1000 : 100_000;
const FILE_BYTES = SMOKE ? 5 * 1024 * 1024 : 500 * 1024 * 1024;
const TINY = join(ROOT, 'tests', 'fixtures', 'generated', 'tiny-model');

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

const agent = new Agent({ keepAlive: true, maxSockets: POLLERS });

/** GET that counts the body's bytes without keeping them. */
function drain(port: number, path: string): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () =>
        res.statusCode === 200 ? ok(bytes) : fail(new Error(`${res.statusCode}`)),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

/** Resets the process's peak RSS (VmHWM) so the next reading covers only what follows. */
function resetPeak(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function call(port: number, method: string, path: string, body?: unknown): Promise<string> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          res.statusCode === 200 ? ok(text) : fail(new Error(`${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', fail);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), p99: at(0.99), n: sorted.length };
}

async function timed(port: number, path: string): Promise<number> {
  const start = performance.now();
  await call(port, 'GET', path);
  return performance.now() - start;
}

interface Running {
  port: number;
  pid: number;
  base: string;
  stop(): Promise<void>;
}

/** The service of the checkout at `root`, as `npm run service` runs it, on a free port. */
async function startService(root: string): Promise<Running> {
  const base = mkdtempSync(join(tmpdir(), 'training-bench-'));
  writeFileSync(join(base, 'data.json'), '[]');
  const port = await freePort();
  const service = spawn(process.execPath, ['--import', 'tsx', join(root, 'service/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      TRAINING_PORT: String(port),
      TRAINING_BASE_DIR: base,
      TRAINING_DATA_DIR: join(base, 'service-data'),
      TRAINING_SCRIPT_ROOTS: FIXTURES,
      TRAINING_DATA_ROOTS: base,
      TRAINING_OUTPUT_ROOTS: base,
      FIXTURE_TINY_MODEL: join(base, 'bench-model'),
      FIXTURE_STEP_MS: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ok, fail) => {
    service.stdout?.on('data', (c: Buffer) => {
      if (c.toString().includes('Training service on')) ok();
    });
    service.once('exit', () => fail(new Error('service exited')));
  });
  return {
    port,
    pid: service.pid ?? 0,
    base,
    async stop() {
      service.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function trainer(port: number) {
  const train = async (script: string, output: string, steps: number) =>
    (
      JSON.parse(
        await call(port, 'POST', '/train', {
          script_path: join(FIXTURES, script),
          output_dir: output,
          data_file: 'data.json',
          base_model: 'bench',
          max_len: 1,
          repeat: 1,
          max_steps: steps,
          lr: 0.1,
        }),
      ) as { run_id: string }
    ).run_id;
  const waitEnd = async (id: string) => {
    for (;;) {
      const run = JSON.parse(await call(port, 'GET', `/runs/${id}`)) as { state: string };
      if (run.state !== 'running') return run.state;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { train, waitEnd };
}

/** Serves a FILE_BYTES onnx/model.onnx from a finished run's web/ folder: MiB/s and peak RSS. */
async function serveFile({ port, pid, base }: Running) {
  const { train, waitEnd } = trainer(port);
  const model = join(base, 'bench-model');
  cpSync(TINY, model, { recursive: true });
  mkdirSync(join(model, 'onnx'), { recursive: true });
  // A new file, never the copy written in place: whatever the copy is (a link into the fixture
  // included), the repo's tiny model stays as it is.
  rmSync(join(model, 'onnx', 'model.onnx'), { force: true });
  writeFileSync(join(model, 'onnx', 'model.onnx'), '', { flag: 'wx' });
  truncateSync(join(model, 'onnx', 'model.onnx'), FILE_BYTES); // sparse: measures the service, not the disk
  const modelRun = await train('hf-trainer.mjs', 'bench-served', 2);
  if ((await waitEnd(modelRun)) !== 'succeeded') throw new Error('model run did not succeed');
  await drain(port, '/trained/bench-served/resolve/main/config.json');
  resetPeak(pid);
  const before = rssMiB(pid);
  const t = performance.now();
  const served = await drain(port, '/trained/bench-served/resolve/main/onnx/model.onnx');
  const seconds = (performance.now() - t) / 1000;
  if (served !== FILE_BYTES) throw new Error(`served ${served} of ${FILE_BYTES} bytes`);
  const after = rssMiB(pid);
  return { seconds, mibPerS: FILE_BYTES / 1048576 / seconds, before, after };
}

/**
 * `--file-vs REV`: the file case only, this checkout against REV (a git worktree made for the
 * run, sharing this node_modules), alternated RUNS times; medians and this ÷ REV.
 */
async function fileVersus(rev: string, runs: number) {
  const other = mkdtempSync(join(tmpdir(), 'bench-rev-'));
  execFileSync('git', ['worktree', 'add', '--detach', other, rev], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(other, 'node_modules'));
  const figures: Record<'this' | 'rev', { mibPerS: number; peak: number }[]> = {
    this: [],
    rev: [],
  };
  try {
    for (let i = 0; i < runs; i++)
      for (const [name, root] of [
        ['this', ROOT],
        ['rev', other],
      ] as const) {
        const running = await startService(root);
        try {
          const r = await serveFile(running);
          figures[name].push({ mibPerS: r.mibPerS, peak: r.after.peak - r.before.rss });
          console.log(
            `${name === 'this' ? 'this checkout' : rev}: ${r.mibPerS.toFixed(0)} MiB/s, peak +${(r.after.peak - r.before.rss).toFixed(1)} MiB`,
          );
        } finally {
          await running.stop();
        }
      }
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', other], { cwd: ROOT, stdio: 'ignore' });
  }
  const med = (xs: number[]) => stats(xs).median;
  const speed = (k: 'this' | 'rev') => med(figures[k].map((f) => f.mibPerS));
  const peak = (k: 'this' | 'rev') => med(figures[k].map((f) => f.peak));
  console.log(
    `\n${(FILE_BYTES / 1048576).toFixed(0)} MiB file, median of ${runs}: this ${speed('this').toFixed(0)} MiB/s, ` +
      `${rev} ${speed('rev').toFixed(0)} MiB/s (this ÷ ${rev} ${(speed('this') / speed('rev')).toFixed(2)}×); ` +
      `peak RSS +${peak('this').toFixed(1)} MiB against +${peak('rev').toFixed(1)} MiB`,
  );
}

async function main() {
  const running = await startService(ROOT);
  const { port, pid } = running;
  const { train, waitEnd } = trainer(port);
  try {
    const idle = rssMiB(pid);
    console.log(`service pid ${pid}, RSS at start ${idle.rss.toFixed(1)} MiB\n`);
    const rows: string[][] = [];
    let bigRun = '';
    for (const lines of LOG_SIZES) {
      const started = performance.now();
      const { run_id } = JSON.parse(
        await call(port, 'POST', '/train', {
          script_path: join(FIXTURES, 'lines.mjs'),
          output_dir: `out-${lines}`,
          data_file: 'data.json',
          base_model: 'bench',
          max_len: 1,
          repeat: 1,
          max_steps: lines,
          lr: 0.1,
        }),
      ) as { run_id: string };
      for (;;) {
        const run = JSON.parse(await call(port, 'GET', `/runs/${run_id}`)) as { state: string };
        if (run.state !== 'running') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const ingest = (performance.now() - started) / 1000;
      const logs = JSON.parse(await call(port, 'GET', `/logs/${run_id}?tail=10`)) as {
        total: number;
      };
      if (logs.total !== lines) throw new Error(`expected ${lines} lines, got ${logs.total}`);
      const path = `/logs/${run_id}?tail=10`;
      for (let i = 0; i < 200; i++) await timed(port, path);
      const samples: number[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) samples.push(await timed(port, path));
      const s = stats(samples);
      const mem = rssMiB(pid);
      rows.push([
        `${lines.toLocaleString('en-US')} lines, 1 poller`,
        s.median.toFixed(3),
        s.p99.toFixed(3),
        String(s.n),
        mem.rss.toFixed(1),
        `(ingested in ${ingest.toFixed(1)} s)`,
      ]);
      bigRun = run_id;
    }
    const path = `/logs/${bigRun}?tail=10`;
    const bigLabel = (LOG_SIZES.at(-1) ?? 0).toLocaleString('en-US');
    const concurrent: number[] = [];
    const wall = performance.now();
    await Promise.all(
      Array.from({ length: POLLERS }, async () => {
        for (let i = 0; i < PER_POLLER; i++) concurrent.push(await timed(port, path));
      }),
    );
    const seconds = (performance.now() - wall) / 1000;
    const c = stats(concurrent);
    const mem = rssMiB(pid);
    rows.push([
      `${bigLabel} lines, ${POLLERS} pollers`,
      c.median.toFixed(3),
      c.p99.toFixed(3),
      String(c.n),
      mem.rss.toFixed(1),
      `(${Math.round(c.n / seconds)} req/s)`,
    ]);
    const header = ['GET /logs/{id}?tail=10', 'median ms', 'p99 ms', 'requests', 'RSS MiB', ''];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
    for (const row of [header, ...rows])
      console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
    console.log(`\npeak RSS ${mem.peak.toFixed(1)} MiB; Node ${process.version}\n`);

    // The loss curve: GET /runs/{id}/metrics with METRIC_POINTS points.
    const metricsStarted = performance.now();
    const metricsRun = await train('metrics.mjs', 'out-metrics', METRIC_POINTS);
    await waitEnd(metricsRun);
    const metricsIngest = (performance.now() - metricsStarted) / 1000;
    const full = JSON.parse(await call(port, 'GET', `/runs/${metricsRun}/metrics`)) as {
      points: unknown[];
      next: number;
    };
    if (full.points.length !== METRIC_POINTS)
      throw new Error(`expected ${METRIC_POINTS} points, got ${full.points.length}`);
    resetPeak(pid);
    const fullSamples: number[] = [];
    let fullBytes = 0;
    for (let i = 0; i < (SMOKE ? 5 : 20); i++) {
      const t = performance.now();
      fullBytes = await drain(port, `/runs/${metricsRun}/metrics`);
      fullSamples.push(performance.now() - t);
    }
    const incSamples: number[] = [];
    for (let i = 0; i < (SMOKE ? 50 : 1000); i++)
      incSamples.push(await timed(port, `/runs/${metricsRun}/metrics?after=${full.next - 10}`));
    const fm = stats(fullSamples);
    const im = stats(incSamples);
    const metricsMem = rssMiB(pid);
    const points = METRIC_POINTS.toLocaleString('en-US');
    console.log(
      `GET /runs/{id}/metrics, ${points} points (ingested in ${metricsIngest.toFixed(1)} s)`,
    );
    console.log(
      `  all points:      median ${fm.median.toFixed(1)} ms, p99 ${fm.p99.toFixed(1)} ms, ${(fullBytes / 1048576).toFixed(1)} MiB JSON, ${fm.n} requests`,
    );
    console.log(
      `  ?after=next-10:  median ${im.median.toFixed(3)} ms, p99 ${im.p99.toFixed(3)} ms, ${im.n} requests`,
    );
    console.log(
      `  RSS ${metricsMem.rss.toFixed(1)} MiB, peak while serving ${metricsMem.peak.toFixed(1)} MiB\n`,
    );

    const file = await serveFile(running);
    console.log(
      `GET /trained/{name}/resolve/main/onnx/model.onnx, ${(FILE_BYTES / 1048576).toFixed(0)} MiB: ${file.seconds.toFixed(2)} s, ${file.mibPerS.toFixed(0)} MiB/s; RSS ${file.before.rss.toFixed(1)} → ${file.after.rss.toFixed(1)} MiB, peak ${file.after.peak.toFixed(1)} MiB`,
    );
  } finally {
    await running.stop();
  }
}

const versus = process.argv.indexOf('--file-vs');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 3;
(versus > 0 ? fileVersus(process.argv[versus + 1] ?? 'HEAD', RUNS) : main())
  .finally(() => agent.destroy())
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
