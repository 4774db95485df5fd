/**
 * A run's process, steps 3 and 4 of a start (runs.ts): spawning it from an argument array in its
 * own session with the run marker in its environment, and wiring its output into the log, the
 * progress and the metrics; then watching its process tree until none of it is left.
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { stepLineCount, toPercent } from '../../src/shared/training-progress';
import type { ServiceConfig } from './config';
import { LineAssembler, type LogStore } from './log-store';
import { parseEvalLine, parseMetricLine, type MetricsStore } from './metrics';
import { launchFailed } from './errors';
import { RUN_MARKER, delay, type ProcessTree } from './proc-tree';
import type { RunRecord } from './run-records';

export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

export interface ActiveRun {
  record: RunRecord;
  child: ChildProcess | null;
  store: LogStore;
  metrics: MetricsStore;
  tree: ProcessTree;
  startedMs: number;
  cancelRequested: boolean;
  /** The interpreter chosen for a `.py` trainer (for the error when it cannot start). */
  python: string;
  /**
   * The Hub token the start request carried (this run's HF_TOKEN), held in memory only: never in
   * the record, and redacted from the log.
   */
  hubToken?: string | undefined;
  /** Resolves when every process of the run has ended and the record is final. */
  ended: Promise<void>;
}

/** How often a live run's process table is scanned for new descendants. */
const SCAN_MS = 250;
/** What the process steps need from the run manager. */
export interface RunContext {
  config: ServiceConfig;
  spawnFn: SpawnFn;
  save(record: RunRecord): Promise<void>;
  /** The run could not start: the service is idle again. */
  clearActive(): void;
  /** Step 5: every process has ended. */
  finish(active: ActiveRun, code: number | null, signal: NodeJS.Signals | null): Promise<void>;
}

/** Step 3: the process, from an argument array (never a shell), in its own session. */
export async function spawnChild(ctx: RunContext, active: ActiveRun) {
  const { record } = active;
  let child: ChildProcess;
  try {
    child = ctx.spawnFn(record.command, record.args, {
      // The service's base folder: a relative path in TRAINING_LAUNCHER (accelerate's
      // --config_file) or in Base model means what it means where the service was started.
      cwd: ctx.config.baseDir,
      detached: true,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PYTHONUNBUFFERED: '1',
        TRAINING_BASE_EXPORTS: ctx.config.baseExportsDir,
        HF_HUB_CACHE: ctx.config.hubCacheDir,
        // The request's token wins over the service's own HF_TOKEN, for this run only.
        ...(active.hubToken ? { HF_TOKEN: active.hubToken } : {}),
        [RUN_MARKER]: record.id,
      },
    });
    await new Promise<void>((ok, fail) => {
      child.once('spawn', ok);
      child.once('error', fail);
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const hint =
      record.command === active.python
        ? ctx.config.python
          ? ' (set TRAINING_PYTHON)'
          : ' (run npm run trainer:setup, or set TRAINING_PYTHON)'
        : ctx.config.launcher
          ? ' (check TRAINING_LAUNCHER)'
          : '';
    record.state = 'failed';
    record.phase = null;
    record.ended_at = new Date().toISOString();
    record.error = `Could not start ${record.command}${hint}: ${reason}`;
    active.store.append(record.error);
    await Promise.all([active.store.close(), active.metrics.close()]);
    await ctx.save(record);
    ctx.clearActive();
    throw launchFailed(record.error);
  }
  active.child = child;
  record.pid = child.pid ?? null;
  if (child.pid !== undefined) active.tree.setRoot(child.pid);
  record.processes = active.tree.entries();
  void ctx.save(record);
}

/** Step 4: output lines → log, progress and metrics; the process's end → step 5. */
export function wireOutput(ctx: RunContext, active: ActiveRun) {
  const { record, store, child } = active;
  if (!child) return;
  const onLine = (line: string) => {
    store.append(line);
    if (line.includes('/')) noteProgress(record, stepLineCount(line));
    if (line.includes('{')) noteMetrics(active, line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const assembler = new LineAssembler(ctx.config.maxLineChars, onLine);
    store.assemblers.push(assembler);
    stream.on('data', (chunk: Buffer) => {
      assembler.push(chunk);
      const open = assembler.open;
      if (open.includes('/')) noteProgress(record, stepLineCount(open));
      if (!store.flush()) {
        stream.pause();
        void store.drained().then(() => stream.resume());
      }
    });
    stream.on('end', () => assembler.end());
  }
  child.on('error', (error) => store.append(`[service] process error: ${error.message}`));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((ok) =>
    child.once('exit', (code, signal) => ok([code, signal])),
  );
  const closed = new Promise<void>((ok) => child.once('close', () => ok()));
  active.ended = watch(ctx, active, exited, closed);
}

/** Records new descendants while the run lives; the run ends when none is left. */
async function watch(
  ctx: RunContext,
  active: ActiveRun,
  exited: Promise<[number | null, NodeJS.Signals | null]>,
  closed: Promise<void>,
) {
  const { record, tree } = active;
  const seen: { exit: [number | null, NodeJS.Signals | null] | null } = { exit: null };
  void exited.then((value) => (seen.exit = value));
  let reported = false;
  for (;;) {
    // Until the launcher exits, wake at once when it does; after that, poll the leftovers.
    await (seen.exit ? delay(SCAN_MS) : Promise.race([exited, delay(SCAN_MS)]));
    if (tree.scan()) {
      record.processes = tree.entries();
      void ctx.save(record);
    }
    const exit = seen.exit;
    if (!exit) continue;
    const left = tree.alive().length;
    if (left === 0) break;
    if (!reported && !active.cancelRequested)
      active.store.append(
        `[service] the launcher exited (code ${String(exit[0] ?? exit[1])}); ${left} process${left === 1 ? '' : 'es'} of the run still running`,
      );
    reported = true;
  }
  // With every process gone the pipes are closed; wait for their last bytes.
  await Promise.race([closed, delay(2000)]);
  const [code, signal] = seen.exit ?? [null, null];
  await ctx.finish(active, code, signal);
}

export function noteProgress(record: RunRecord, step: { current: number; total: number } | null) {
  if (!step) return;
  record.current = step.current;
  record.total = step.total;
  record.progress = Math.max(record.progress, toPercent(step));
  if (record.state === 'running' && record.phase === 'training' && step.current >= step.total)
    record.phase = 'saving';
}

function noteMetrics(active: ActiveRun, line: string) {
  const { record } = active;
  const evaluated = parseEvalLine(line);
  if (evaluated) {
    active.metrics.addEval(evaluated, record.current, (Date.now() - active.startedMs) / 1000);
    record.last_eval_loss = evaluated.loss;
    return;
  }
  const parsed = parseMetricLine(line);
  if (!parsed) return;
  active.metrics.add(parsed, record.current, (Date.now() - active.startedMs) / 1000);
  record.last_loss = parsed.loss;
  record.metrics_count = active.metrics.seen;
}
