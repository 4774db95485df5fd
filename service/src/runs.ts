/**
 * Training runs: starting a script as a child process (argument array, own process group), one at
 * a time; its output into a LogStore; cancelling (SIGTERM to the group, SIGKILL after a grace
 * period); run records on disk so a restart lists what ran, and runs it interrupted.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod/mini';
import {
  LOG_TAIL,
  RunInfoSchema,
  type LogsQuery,
  type LogsResponse,
  type RunInfo,
  type TrainRequest,
} from '../../src/shared/training-api';
import { lastStepCount, lastStepCountInLines, toPercent } from '../../src/shared/training-progress';
import type { ServiceConfig } from './config';
import { LineAssembler, LogStore } from './log-store';
import { RequestError, confineDirectory, confineExistingFile, launchFor } from './paths';

export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

/** What is kept on disk: the API's view plus how the process was started. */
const RunRecordSchema = z.extend(RunInfoSchema, {
  pid: z.nullable(z.number()),
  command: z.string(),
  args: z.array(z.string()),
});
type RunRecord = z.infer<typeof RunRecordSchema>;

interface ActiveRun {
  record: RunRecord;
  child: ChildProcess | null;
  store: LogStore;
  cancelRequested: boolean;
  killTimer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

const KEEP_LOADED = 8;

/** The last lines within the file's last 64 KiB (bounded work, for a record's progress). */
function readLastLines(file: string): string[] {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n');
  } catch {
    return [];
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function publicView(record: RunRecord): RunInfo {
  const { pid: _pid, command: _command, args: _args, ...info } = record;
  return info;
}

export class RunManager {
  private readonly runs = new Map<string, RunRecord>();
  /** Log stores of runs that ended, most recently used last. */
  private readonly loaded = new Map<string, Promise<LogStore>>();
  private active: ActiveRun | null = null;
  private readonly runsDir: string;

  constructor(
    private readonly config: ServiceConfig,
    private readonly spawnFn: SpawnFn = nodeSpawn,
  ) {
    this.runsDir = join(config.dataDir, 'runs');
    mkdirSync(this.runsDir, { recursive: true });
  }

  /** Loads the records on disk; runs that were going when the service stopped are interrupted. */
  init(): void {
    for (const entry of readdirSync(this.runsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      let record: RunRecord;
      try {
        const raw: unknown = JSON.parse(
          readFileSync(join(this.runsDir, entry.name, 'run.json'), 'utf8'),
        );
        record = RunRecordSchema.parse(raw);
      } catch {
        continue; // a half-written or foreign folder: not a run
      }
      if (record.state === 'running') {
        record.state = 'interrupted';
        record.ended_at = new Date().toISOString();
        record.error =
          'The training service stopped while this run was going; its output up to then is kept.';
        this.noteProgress(record, lastStepCountInLines(readLastLines(this.logOf(record.id))));
        this.save(record);
      }
      this.runs.set(record.id, record);
    }
  }

  private dirOf(id: string): string {
    return join(this.runsDir, id);
  }

  private logOf(id: string): string {
    return join(this.dirOf(id), 'output.log');
  }

  private save(record: RunRecord): void {
    const file = join(this.dirOf(record.id), 'run.json');
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(record, null, 2));
      renameSync(`${file}.tmp`, file);
    } catch (error) {
      // The run goes on in memory; only its record after a restart is affected.
      console.error(`Could not save ${file}:`, error instanceof Error ? error.message : error);
    }
  }

  list(): RunInfo[] {
    return [...this.runs.values()]
      .sort((a, b) => b.started_at.localeCompare(a.started_at))
      .map(publicView);
  }

  get(id: string): RunInfo {
    const record = this.runs.get(id);
    if (!record) throw new RequestError(404, `No run with id "${id}"`);
    return publicView(record);
  }

  /** The active run's id, if any (for shutdown and tests). */
  get activeId(): string | null {
    return this.active?.record.id ?? null;
  }

  async start(request: TrainRequest): Promise<RunInfo> {
    const { config } = this;
    const script = await confineExistingFile(
      'script_path',
      request.script_path,
      config.scriptRoots,
      config.baseDir,
    );
    const dataFile = await confineExistingFile(
      'data_file',
      request.data_file,
      config.dataRoots,
      config.baseDir,
    );
    const outputDir = await confineDirectory(
      'output_dir',
      request.output_dir,
      config.outputRoots,
      config.baseDir,
    );
    const launch = await launchFor(script, config.python);
    // From the check to `this.active = …` nothing awaits, so two starts cannot both pass.
    if (this.active) {
      const { id, started_at } = this.active.record;
      throw new RequestError(
        409,
        `A training run is already in progress (run ${id}, started ${started_at}). Cancel it or wait for it to finish before starting another.`,
      );
    }
    const id = randomUUID();
    const args = [
      ...launch.args,
      '--base_model',
      request.base_model,
      '--data_file',
      dataFile,
      '--output_dir',
      outputDir,
      '--max_len',
      String(request.max_len),
      '--repeat',
      String(request.repeat),
      '--max_steps',
      String(request.max_steps),
      '--lr',
      String(request.lr),
    ];
    const record: RunRecord = {
      id,
      state: 'running',
      exit_code: null,
      signal: null,
      current: null,
      total: null,
      progress: 0,
      started_at: new Date().toISOString(),
      ended_at: null,
      script_path: script,
      base_model: request.base_model,
      output_dir: outputDir,
      data_file: dataFile,
      pid: null,
      command: launch.command,
      args,
    };
    mkdirSync(this.dirOf(id), { recursive: true });
    const store = new LogStore(this.logOf(id), config.ringLines);
    store.openForWriting();
    let markExited = () => {};
    const active: ActiveRun = {
      record,
      child: null,
      store,
      cancelRequested: false,
      killTimer: null,
      exited: new Promise<void>((ok) => (markExited = ok)),
    };
    this.active = active;
    this.runs.set(id, record);

    let child: ChildProcess;
    try {
      // An argument array and no shell: request values are never interpreted. `detached` gives
      // the child its own process group, so cancelling reaches whatever it starts.
      child = this.spawnFn(launch.command, args, {
        cwd: dirname(script),
        detached: true,
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PYTHONUNBUFFERED: '1' },
      });
      await new Promise<void>((ok, fail) => {
        child.once('spawn', ok);
        child.once('error', fail);
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const hint = launch.command === config.python ? ' (set TRAINING_PYTHON)' : '';
      record.state = 'failed';
      record.ended_at = new Date().toISOString();
      record.error = `Could not start ${launch.command}${hint}: ${reason}`;
      store.append(record.error);
      await store.close();
      this.save(record);
      this.active = null;
      markExited();
      throw new RequestError(500, record.error);
    }
    active.child = child;
    record.pid = child.pid ?? null;
    this.save(record);

    const onLine = (line: string) => {
      store.append(line);
      if (line.includes('/')) this.noteProgress(record, lastStepCount(line));
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      const assembler = new LineAssembler(config.maxLineChars, onLine);
      store.assemblers.push(assembler);
      stream.on('data', (chunk: Buffer) => {
        assembler.push(chunk);
        const open = assembler.open;
        if (open.includes('/')) this.noteProgress(record, lastStepCount(open));
        if (!store.flush()) {
          stream.pause();
          void store.drained().then(() => stream.resume());
        }
      });
      stream.on('end', () => assembler.end());
    }
    child.on('error', (error) => store.append(`[service] process error: ${error.message}`));
    child.once('close', (code, signal) => {
      void this.finish(active, code, signal).then(markExited);
    });
    return publicView(record);
  }

  private noteProgress(record: RunRecord, step: { current: number; total: number } | null) {
    if (!step) return;
    record.current = step.current;
    record.total = step.total;
    record.progress = Math.max(record.progress, toPercent(step));
  }

  private async finish(active: ActiveRun, code: number | null, signal: NodeJS.Signals | null) {
    const { record, store } = active;
    if (active.killTimer) clearTimeout(active.killTimer);
    for (const assembler of store.assemblers) assembler.end();
    store.assemblers.length = 0;
    record.exit_code = code;
    record.signal = signal;
    record.ended_at = new Date().toISOString();
    if (record.state === 'running')
      record.state = active.cancelRequested ? 'cancelled' : code === 0 ? 'succeeded' : 'failed';
    await store.close();
    this.save(record);
    this.remember(record.id, Promise.resolve(store));
    if (this.active === active) this.active = null;
  }

  private remember(id: string, store: Promise<LogStore>) {
    this.loaded.delete(id);
    this.loaded.set(id, store);
    while (this.loaded.size > KEEP_LOADED) {
      const oldest = this.loaded.keys().next().value;
      if (oldest === undefined) break;
      this.loaded.delete(oldest);
    }
  }

  private storeOf(id: string): Promise<LogStore> {
    if (this.active?.record.id === id) return Promise.resolve(this.active.store);
    const cached = this.loaded.get(id);
    if (cached) {
      this.loaded.delete(id);
      this.loaded.set(id, cached);
      return cached;
    }
    const loading = LogStore.load(this.logOf(id), this.config.ringLines);
    this.remember(id, loading);
    void loading.then((store) => {
      const record = this.runs.get(id);
      if (record && record.current === null)
        this.noteProgress(record, lastStepCountInLines(store.tail(LOG_TAIL)));
    });
    return loading;
  }

  async logs(id: string, query: LogsQuery): Promise<LogsResponse> {
    if (!this.runs.has(id)) throw new RequestError(404, `No run with id "${id}"`);
    if (query.tail !== undefined && (query.offset !== undefined || query.limit !== undefined))
      throw new RequestError(400, 'Use either tail=N or offset=K&limit=L, not both');
    const store = await this.storeOf(id);
    if (query.offset !== undefined) {
      const lines = await store.page(query.offset, query.limit ?? 100);
      return { lines, total: store.total, next_offset: query.offset + lines.length };
    }
    return {
      lines: store.tail(query.tail ?? LOG_TAIL),
      total: store.total,
      next_offset: store.total,
    };
  }

  /** SIGTERM to the run's process group, SIGKILL after the grace period; resolves once it ended. */
  async cancel(id: string): Promise<RunInfo> {
    const record = this.runs.get(id);
    if (!record) throw new RequestError(404, `No run with id "${id}"`);
    const active = this.active;
    if (!active || active.record.id !== id || !active.child)
      throw new RequestError(409, `Run ${id} is not running (it is ${record.state})`);
    if (!active.cancelRequested) {
      active.cancelRequested = true;
      active.store.append('[service] cancel requested: SIGTERM sent to the process group');
      this.signalGroup(active, 'SIGTERM');
      active.killTimer = setTimeout(() => {
        active.store.append(
          `[service] still running ${this.config.killGraceMs} ms after SIGTERM: SIGKILL sent`,
        );
        this.signalGroup(active, 'SIGKILL');
      }, this.config.killGraceMs);
    }
    await active.exited;
    return publicView(record);
  }

  private signalGroup(active: ActiveRun, signal: NodeJS.Signals) {
    const pid = active.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        active.child?.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /**
   * Service shutdown: the active run is marked interrupted, its process group gets SIGTERM, and
   * SIGKILL if it is still there after the grace period.
   */
  async shutdown(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.record.state = 'interrupted';
    active.record.ended_at = new Date().toISOString();
    active.record.error = 'The training service was stopped while this run was going.';
    this.save(active.record);
    this.signalGroup(active, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((ok) => {
      timer = setTimeout(() => ok(false), this.config.killGraceMs);
    });
    const ended = await Promise.race([active.exited.then(() => true), timeout]);
    clearTimeout(timer);
    if (!ended) {
      this.signalGroup(active, 'SIGKILL');
      await active.exited;
    }
  }
}
