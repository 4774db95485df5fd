/**
 * `npm run bench:speed -- --profile`: one reply traced with Chrome's tracing (Chrome DevTools
 * Protocol, through playwright-core's CDPSession), every thread Chromium records (the page's main
 * thread, its worker, the GPU process with SwiftShader), with V8's sampling profiler on. Prints,
 * per thread, how long its tasks ran during the reply, and the functions with the most self time,
 * in ms per generated token, so the app's per-token work can be set beside the plain page's.
 * `SPEED_TRACE_FILE=PREFIX` also writes each trace's events to PREFIX-<label>.json.
 */
import { writeFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  /** The thread's CPU time, where Chromium records it. */
  tdur?: number;
  id?: string;
  args?: {
    name?: string;
    data?: {
      cpuProfile?: {
        nodes?: { id: number; parent?: number; callFrame: CallFrame }[];
        samples?: number[];
      };
      timeDeltas?: number[];
    };
  };
}
interface CallFrame {
  functionName?: string;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
}

const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
];

/** Threads whose tasks took less than this share of the reply are left out of the summary. */
const MIN_BUSY_SHARE = 0.02;
const TOP_FUNCTIONS = 12;

/** Runs `run` under Chrome tracing of `categories` (every thread) and returns its events. */
export async function trace<T>(
  context: BrowserContext,
  page: Page,
  run: () => Promise<T>,
  categories: readonly string[] = CATEGORIES,
): Promise<{ result: T; events: TraceEvent[]; ms: number }> {
  const session = await context.newCDPSession(page);
  const events: TraceEvent[] = [];
  session.on('Tracing.dataCollected', (e) => {
    events.push(...(e.value as unknown as TraceEvent[]));
  });
  const complete = new Promise<void>((resolve) =>
    session.once('Tracing.tracingComplete', () => resolve()),
  );
  await session.send('Tracing.start', {
    traceConfig: { includedCategories: [...categories], recordMode: 'recordAsMuchAsPossible' },
    transferMode: 'ReportEvents',
  });
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  await session.send('Tracing.end');
  await complete;
  await session.detach();
  return { result, events, ms };
}

const shortUrl = (url = '') => url.replace(/^.*\//, '').replace(/\?.*$/, '') || '(native)';

/** Per thread: busy ms (top-level tasks) and self ms per function from the sampling profiler. */
function summarise(events: TraceEvent[]) {
  const names = new Map<string, string>();
  const busy = new Map<string, number>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name) names.set(key, e.args.name);
    if (e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.dur)
      busy.set(key, (busy.get(key) ?? 0) + e.dur / 1000);
  }
  // A 'Profile' event names the profiled thread; its chunks (written from V8's profiler thread)
  // carry the same id, with the new call-tree nodes, the samples and the time between samples.
  const profiled = new Map<string, string>();
  for (const e of events)
    if (e.name === 'Profile' && e.ph === 'P') profiled.set(`${e.pid}:${e.id}`, `${e.pid}:${e.tid}`);
  const nodes = new Map<string, Map<number, CallFrame>>();
  const self = new Map<string, Map<string, number>>();
  const byFile = new Map<string, Map<string, number>>();
  const add = (m: Map<string, Map<string, number>>, key: string, label: string, ms: number) => {
    const inner = m.get(key) ?? new Map<string, number>();
    m.set(key, inner);
    inner.set(label, (inner.get(label) ?? 0) + ms);
  };
  for (const e of events) {
    if (e.name !== 'ProfileChunk' || !e.args?.data) continue;
    const key = profiled.get(`${e.pid}:${e.id}`) ?? `${e.pid}:${e.tid}`;
    const byId = nodes.get(key) ?? new Map<number, CallFrame>();
    nodes.set(key, byId);
    for (const n of e.args.data.cpuProfile?.nodes ?? []) byId.set(n.id, n.callFrame);
    const samples = e.args.data.cpuProfile?.samples ?? [];
    const deltas = e.args.data.timeDeltas ?? [];
    samples.forEach((id, i) => {
      const frame = byId.get(id);
      if (!frame || frame.functionName === '(idle)') return;
      const ms = (deltas[i] ?? 0) / 1000;
      const file = shortUrl(frame.url);
      const where = frame.url
        ? ` ${file}:${(frame.lineNumber ?? 0) + 1}:${frame.columnNumber ?? 0}`
        : '';
      add(self, key, `${frame.functionName || '(anonymous)'}${where}`, ms);
      add(byFile, key, file, ms);
    });
  }
  return { names, busy, self, byFile };
}

/** Traces `run` (one reply of `tokens` tokens) and prints the summary under `label`. */
export async function profileReply<T>(
  context: BrowserContext,
  page: Page,
  label: string,
  run: () => Promise<T>,
  tokens: number,
): Promise<T> {
  const { result, events, ms } = await trace(context, page, run);
  const { names, busy, self, byFile } = summarise(events);
  if (process.env.SPEED_TRACE_FILE)
    writeFileSync(
      `${process.env.SPEED_TRACE_FILE}-${label.replace(/\W+/g, '_')}.json`,
      JSON.stringify(events),
    );
  console.log(`\nprofile: ${label} — one reply of ${tokens} tokens, ${ms.toFixed(0)} ms`);
  const threads = [...busy].filter(([, b]) => b >= ms * MIN_BUSY_SHARE).sort((a, b) => b[1] - a[1]);
  for (const [key, b] of threads) {
    console.log(
      `  thread ${names.get(key) ?? key} (${key}): tasks ${b.toFixed(0)} ms (${((b / ms) * 100).toFixed(0)}% of the reply, ${(b / tokens).toFixed(2)} ms/token)`,
    );
    const top = (m: Map<string, number> | undefined) =>
      [...(m ?? [])].sort((a, b2) => b2[1] - a[1]).slice(0, TOP_FUNCTIONS);
    console.log(`    self time by script:`);
    for (const [file, t] of top(byFile.get(key)))
      console.log(`      ${(t / tokens).toFixed(3).padStart(8)} ms/token  ${file}`);
    console.log(`    self time by function:`);
    for (const [fn, t] of top(self.get(key)))
      console.log(`      ${(t / tokens).toFixed(3).padStart(8)} ms/token  ${fn}`);
  }
  return result;
}
