/**
 * `npm run bench:service`: GET /logs/{id}?tail=10 latency (median, p99) on a run with 1,000 and
 * with 1,000,000 log lines, then with 50 concurrent pollers, and the service's resident memory.
 * The service runs as `npm run service` does (its own process), on a free loopback port, with a
 * temporary data folder; the load script is service/test/fixtures/lines.mjs. `--smoke`: 100 and
 * 1,000 lines, 5 pollers, few requests (CI: it runs end to end; the figures mean nothing).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const SIZES = SMOKE ? [100, 1000] : [1000, 1_000_000];

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

async function main() {
  const base = mkdtempSync(join(tmpdir(), 'training-bench-'));
  writeFileSync(join(base, 'data.json'), '[]');
  const port = await freePort();
  const service = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'service/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TRAINING_PORT: String(port),
      TRAINING_BASE_DIR: base,
      TRAINING_DATA_DIR: join(base, 'service-data'),
      TRAINING_SCRIPT_ROOTS: FIXTURES,
      TRAINING_DATA_ROOTS: base,
      TRAINING_OUTPUT_ROOTS: base,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pid = service.pid ?? 0;
  try {
    await new Promise<void>((ok, fail) => {
      service.stdout?.on('data', (c: Buffer) => {
        if (c.toString().includes('Training service on')) ok();
      });
      service.once('exit', () => fail(new Error('service exited')));
    });
    const idle = rssMiB(pid);
    console.log(`service pid ${pid}, RSS at start ${idle.rss.toFixed(1)} MiB\n`);
    const rows: string[][] = [];
    let bigRun = '';
    for (const lines of SIZES) {
      const started = performance.now();
      const { run_id } = JSON.parse(
        await call(port, 'POST', '/train', {
          script_path: join(FIXTURES, 'lines.mjs'),
          output_dir: 'out',
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
      `${(SIZES.at(-1) ?? 0).toLocaleString('en-US')} lines, ${POLLERS} pollers`,
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
    console.log(`\npeak RSS ${mem.peak.toFixed(1)} MiB; Node ${process.version}`);
  } finally {
    service.kill('SIGTERM');
    agent.destroy();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
