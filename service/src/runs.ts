/**
 * Training runs: one at a time, started in named steps (validate → prepare folder → spawn → wire
 * output → finish); its output into a LogStore and its metric lines into a MetricsStore; every
 * process of it tracked (proc-tree.ts), so cancel, shutdown and a restart after a crash end them
 * all. Run records on disk let a restart list what ran.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import {
  LOG_TAIL,
  RESUMABLE_STATES,
  RunSplitSchema,
  formatIssues,
  type DatasetEntry,
  type RunSplit,
  type LogsQuery,
  type LogsResponse,
  type MetricsResponse,
  type PlanResponse,
  type RunInfo,
  type TrainRequest,
} from '../../src/shared/training-api';
import { isRecord } from '../../src/shared/guards';
import { lastStepCountInLines } from '../../src/shared/training-progress';
import { trainingMessages } from '../../src/shared/training-messages';
import type { ServiceConfig } from './config';
import { LogStore } from './log-store';
import { MetricsStore } from './metrics';
import { inspectWebFolder, modelId, modelName, readSkippedExport } from './models';
import { readDatasetFile } from './datasets';
import { checkpointsDir, fileSha256, newestCheckpoint } from './checkpoints';
import { badInput, busy, folderInUse, notFound, unreadable, wrongState } from './errors';
import { confineDirectory, confineExistingFile, launchFor } from './paths';
import { ProcessTree, endTree } from './proc-tree';
import {
  noteProgress,
  spawnChild,
  wireOutput,
  type ActiveRun,
  type RunContext,
  type SpawnFn,
} from './run-process';
import { choosePython } from './trainer-env';
import { PLAN_TIMEOUT_MS, runPlan } from './plan';
import { sentOptions, trainerArgs } from '../../src/shared/training-fields';
import { RecordWriter, publicView, readLastLines, readRecord, type RunRecord } from './run-records';

export type { SpawnFn } from './run-process';

const KEEP_LOADED = 8;

export class RunManager {
  private readonly runs = new Map<string, RunRecord>();
  /** Log and metric stores of runs that ended, most recently used last. */
  private readonly loaded = new Map<string, Promise<[LogStore, MetricsStore]>>();
  private active: ActiveRun | null = null;
  private readonly runsDir: string;
  private readonly context: RunContext;
  private readonly writer = new RecordWriter();
  /** Set by the trainer environment: a set-up in progress blocks new runs. */
  settingUp: () => boolean = () => false;
  /** How long POST /train/plan waits for the trainer. */
  planTimeoutMs = PLAN_TIMEOUT_MS;

  constructor(
    private readonly config: ServiceConfig,
    private readonly spawnFn: SpawnFn = nodeSpawn,
  ) {
    this.runsDir = join(config.dataDir, 'runs');
    mkdirSync(this.runsDir, { recursive: true });
    this.context = {
      config,
      spawnFn,
      save: (record) => this.save(record),
      clearActive: () => {
        this.active = null;
      },
      finish: (active, code, signal) => this.finish(active, code, signal),
    };
  }

  /** Loads the records on disk. */
  init(): void {
    for (const entry of readdirSync(this.runsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const record = readRecord(join(this.runsDir, entry.name, 'run.json'));
      if (record) this.runs.set(record.id, record);
    }
  }

  /**
   * Runs recorded as running were left behind by a service that died: end whatever of them still
   * runs (by pid and start time, and the run marker), then mark them interrupted.
   */
  async recover(): Promise<void> {
    for (const record of this.runs.values()) {
      if (record.state !== 'running' || this.active?.record.id === record.id) continue;
      const tree = new ProcessTree(record.id, null, record.processes);
      tree.scan();
      const left = tree.alive().length;
      if (left > 0) {
        console.log(`Run ${record.id} left ${left} processes running: ending them`);
        await endTree(tree, this.config.killGraceMs, (line) => console.log(line));
      }
      record.state = 'interrupted';
      record.phase = null;
      record.ended_at = new Date().toISOString();
      record.processes = tree.entries();
      record.error =
        'The training service stopped while this run was going; its output up to then is kept' +
        (left > 0 ? ` (${left} leftover processes were ended at the next start).` : '.');
      noteProgress(record, lastStepCountInLines(readLastLines(this.logOf(record.id))));
      record.checkpoint_step = (await newestCheckpoint(record.output_dir))?.step ?? null;
      await this.save(record);
    }
  }

  private dirOf(id: string): string {
    return join(this.runsDir, id);
  }

  private logOf(id: string): string {
    return join(this.dirOf(id), 'output.log');
  }

  private metricsOf(id: string): string {
    return join(this.dirOf(id), 'metrics.jsonl');
  }

  private save(record: RunRecord): Promise<void> {
    return this.writer.save(this.dirOf(record.id), record);
  }

  list(): RunInfo[] {
    return [...this.runs.values()]
      .sort((a, b) => b.started_at.localeCompare(a.started_at))
      .map(publicView);
  }

  /** Records of every run (for the model listing). */
  records(): RunRecord[] {
    return [...this.runs.values()];
  }

  get(id: string): RunInfo {
    return publicView(this.recordOf(id));
  }

  private recordOf(id: string): RunRecord {
    const record = this.runs.get(id);
    if (!record) throw notFound(trainingMessages.noRun(id));
    return record;
  }

  /** The active run's id, if any. */
  get activeId(): string | null {
    return this.active?.record.id ?? null;
  }

  async start(request: TrainRequest): Promise<RunInfo> {
    const plan = await this.validate(request);
    await this.checkOutputFree(plan.outputDir);
    this.checkIdle();
    // What a resume checks the data file against.
    const dataSha256 = await fileSha256(plan.dataFile).catch((error: unknown) => {
      throw unreadable(
        `Could not read the data file ${plan.dataFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    const id = randomUUID();
    await mkdir(this.dirOf(id), { recursive: true });
    // From this busy check to `this.active = …` nothing awaits, so two starts cannot both pass.
    try {
      this.checkIdle();
    } catch (error) {
      await rm(this.dirOf(id), { recursive: true, force: true });
      throw error;
    }
    const active = this.prepare(id, request, plan);
    active.record.data_sha256 = dataSha256;
    await spawnChild(this.context, active);
    wireOutput(this.context, active);
    return publicView(active.record);
  }

  /** Step 1: request paths confined to their roots, and the command line. */
  private async validate(request: TrainRequest) {
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
    const python = (await choosePython(config)).command;
    const launch = await launchFor(script, python, config.launcher);
    // The options' flags come from the training table (training-fields.json): optional ones
    // only when sent, so trainers without them keep working.
    const flags = [
      ...['--base_model', request.base_model, '--data_file', dataFile],
      ...['--output_dir', outputDir],
      ...trainerArgs(request),
    ];
    const args = [...launch.args, ...flags];
    return { script, dataFile, outputDir, command: launch.command, args, flags, python };
  }

  /**
   * What the run would do (POST /train/plan): the same checks and flags as a start, run with
   * `--plan` by the interpreter alone (never the launcher), and the device's memory beside it.
   */
  async plan(request: TrainRequest): Promise<PlanResponse> {
    const checked = await this.validate(request);
    const launch = await launchFor(checked.script, checked.python, null);
    const plan = await runPlan({
      command: launch.command,
      args: [...launch.args, '--plan', ...checked.flags],
      script: checked.script,
      spawnFn: this.spawnFn,
      timeoutMs: this.planTimeoutMs,
      env: { TRAINING_BASE_EXPORTS: this.config.baseExportsDir },
    });
    const memory = plan.device_memory_bytes ?? (plan.device === 'cpu' ? totalmem() : null);
    return { plan, device_memory_bytes: memory, device_name: plan.device };
  }

  /** A run never writes into a folder another run is using or has saved a result in. */
  private async checkOutputFree(outputDir: string) {
    const running = this.active?.record;
    if (running?.output_dir === outputDir)
      throw folderInUse(trainingMessages.folderInUse(outputDir, running.id));
    const entries = await readdir(outputDir).catch((): string[] => []);
    if (entries.length === 0) return;
    const owner = [...this.runs.values()]
      .filter((r) => r.output_dir === outputDir)
      .sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
    throw folderInUse(
      trainingMessages.folderHolds(
        outputDir,
        owner ? trainingMessages.resultOf(owner.id, owner.state) : 'files',
      ),
    );
  }

  private checkIdle() {
    if (this.settingUp()) throw busy(trainingMessages.settingUp());
    if (!this.active) return;
    const { id, started_at } = this.active.record;
    throw busy(trainingMessages.runActive(id, started_at));
  }

  /** Step 2: the run's folder, log, metrics file and record. */
  private prepare(
    id: string,
    request: TrainRequest,
    plan: Awaited<ReturnType<RunManager['validate']>>,
  ) {
    const record: RunRecord = {
      id,
      state: 'running',
      phase: 'training',
      exit_code: null,
      signal: null,
      current: null,
      total: null,
      progress: 0,
      started_at: new Date().toISOString(),
      ended_at: null,
      duration_ms: 0,
      script_path: plan.script,
      base_model: request.base_model,
      output_dir: plan.outputDir,
      data_file: plan.dataFile,
      last_loss: null,
      metrics_count: 0,
      model_id: null,
      model_error: null,
      method: request.method ?? 'lora',
      base_model_id: null,
      last_eval_loss: null,
      options: sentOptions(request),
      pid: null,
      command: plan.command,
      args: plan.args,
      processes: [],
    };
    const store = new LogStore(this.logOf(id), this.config.ringLines);
    store.openForWriting();
    const metrics = new MetricsStore(this.metricsOf(id));
    metrics.openForWriting();
    const active: ActiveRun = {
      record,
      child: null,
      store,
      metrics,
      tree: new ProcessTree(id),
      startedMs: Date.now(),
      cancelRequested: false,
      python: plan.python,
      ended: Promise.resolve(),
    };
    this.active = active;
    this.runs.set(id, record);
    return active;
  }

  /** Step 5: the outcome. Succeeded = exit 0, not cancelled, and a saved result. */
  private async finish(active: ActiveRun, code: number | null, signal: NodeJS.Signals | null) {
    const { record, store } = active;
    for (const assembler of store.assemblers) assembler.end();
    store.assemblers.length = 0;
    let state = record.state;
    if (state === 'running') {
      if (active.cancelRequested) state = 'cancelled';
      else if (code !== 0) state = 'failed';
      else if ((await readdir(record.output_dir).catch(() => [])).length === 0) {
        state = 'failed';
        record.error = `The trainer exited with code 0 but saved nothing in ${record.output_dir}.`;
        store.append(`[service] ${record.error}`);
      } else state = 'succeeded';
    }
    if (state === 'succeeded') await this.noteModel(record);
    record.checkpoint_step = (await newestCheckpoint(record.output_dir))?.step ?? null;
    await Promise.all([store.close(), active.metrics.close()]);
    // The record turns final and the service idle in the same tick: a client that sees the
    // run ended can start the next one.
    Object.assign(record, {
      state,
      phase: null,
      exit_code: code,
      signal,
      ended_at: new Date().toISOString(),
      processes: active.tree.entries(),
    });
    this.remember(record.id, Promise.resolve([store, active.metrics]));
    if (this.active === active) this.active = null;
    // After the service is idle: a save awaited in between let a client see the run ended yet be
    // refused as busy. Saves are queued in order, so this one never overwrites a later state.
    await this.save(record);
  }

  /**
   * Resumes a run that ended without its result (failed, cancelled, interrupted) from its newest
   * checkpoint: the same command and arguments plus `--resume`, in the same output folder, as the
   * same run. Its log and metrics file go on; the trainer's step numbers continue the curve.
   */
  async resume(id: string): Promise<RunInfo> {
    const record = this.recordOf(id);
    this.checkIdle();
    if (!RESUMABLE_STATES.includes(record.state))
      throw wrongState(trainingMessages.notResumable(id, record.state, record.output_dir));
    const later = [...this.runs.values()].find(
      (r) => r.id !== id && r.output_dir === record.output_dir && r.started_at > record.started_at,
    );
    if (later) throw folderInUse(trainingMessages.folderTaken(record.output_dir, id, later.id));
    const checkpoint = await newestCheckpoint(record.output_dir);
    if (!checkpoint)
      throw wrongState(trainingMessages.noCheckpoint(id, checkpointsDir(record.output_dir)));
    await this.checkSameData(record);
    const python = (await choosePython(this.config)).command;
    const [store, metrics] = await Promise.all([
      LogStore.load(this.logOf(id), this.config.ringLines),
      MetricsStore.load(this.metricsOf(id)),
    ]);
    // From this busy check to `this.active = …` nothing awaits, so two resumes cannot both pass.
    this.checkIdle();
    const previousMs = publicView(record).duration_ms;
    Object.assign(record, {
      state: 'running',
      phase: 'training',
      exit_code: null,
      signal: null,
      ended_at: null,
      pid: null,
      processes: [],
      model_id: null,
      model_error: null,
      args: record.args.includes('--resume') ? record.args : [...record.args, '--resume'],
    } satisfies Partial<RunRecord>);
    delete record.error;
    store.openForWriting();
    metrics.openForWriting();
    store.append(trainingMessages.resumedFrom(checkpoint.step));
    store.flush();
    const active: ActiveRun = {
      record,
      child: null,
      store,
      metrics,
      tree: new ProcessTree(id),
      // Metric times go on from where the run stopped.
      startedMs: Date.now() - previousMs,
      cancelRequested: false,
      python,
      ended: Promise.resolve(),
    };
    this.active = active;
    this.loaded.delete(id);
    await spawnChild(this.context, active);
    wireOutput(this.context, active);
    return publicView(record);
  }

  /** The data file is the one the run started with (its sha256 in the record). */
  private async checkSameData(record: RunRecord) {
    if (!record.data_sha256) throw wrongState(trainingMessages.noDataHash(record.id));
    let now: string;
    try {
      now = await fileSha256(record.data_file);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw wrongState(trainingMessages.dataUnreadable(record.data_file, record.id, reason));
    }
    if (now !== record.data_sha256)
      throw wrongState(trainingMessages.dataChanged(record.data_file, record.id));
  }

  /** A succeeded run's browser-ready copy: its model id, or why there is none. */
  private async noteModel(record: RunRecord) {
    let name = modelName(record.output_dir);
    const taken = [...this.runs.values()].some(
      (r) => r.id !== record.id && r.model_id === modelId(name),
    );
    if (taken) name = `${name}-${record.id.slice(0, 8)}`;
    const base = await inspectWebFolder(join(record.output_dir, 'base-web'));
    if (base.ok) record.base_model_id = modelId(`${name}-base`);
    const web = await inspectWebFolder(join(record.output_dir, 'web'));
    if (!web.ok) {
      // The trainer says why it did not export (an architecture the exporter lacks, a failed check).
      record.model_error = (await readSkippedExport(record.output_dir)) ?? web.reason;
      return;
    }
    record.model_id = modelId(name);
  }

  /** The entries the trainer held out (`<output_dir>/split.json`). */
  async split(id: string): Promise<RunSplit> {
    const record = this.recordOf(id);
    const file = join(record.output_dir, 'split.json');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw notFound(trainingMessages.noSplit(id, file));
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw unreadable(
        `${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const fields = isRecord(raw) ? raw : {};
    const parsed = z.safeParse(RunSplitSchema, {
      seed: null,
      train_count: Array.isArray(fields.train_indices) ? fields.train_indices.length : 0,
      ...fields,
    });
    if (!parsed.success)
      throw unreadable(`${file} is malformed: ${formatIssues(parsed.error.issues, 'split')}`);
    return parsed.data;
  }

  /** Every entry of the run's data file. */
  async dataset(id: string): Promise<DatasetEntry[]> {
    return readDatasetFile(this.recordOf(id).data_file);
  }

  private remember(id: string, stores: Promise<[LogStore, MetricsStore]>) {
    this.loaded.delete(id);
    this.loaded.set(id, stores);
    while (this.loaded.size > KEEP_LOADED) {
      const oldest = this.loaded.keys().next().value;
      if (oldest === undefined) break;
      this.loaded.delete(oldest);
    }
  }

  private storesOf(id: string): Promise<[LogStore, MetricsStore]> {
    if (this.active?.record.id === id)
      return Promise.resolve([this.active.store, this.active.metrics]);
    const cached = this.loaded.get(id);
    if (cached) {
      this.remember(id, cached);
      return cached;
    }
    const loading = Promise.all([
      LogStore.load(this.logOf(id), this.config.ringLines),
      MetricsStore.load(this.metricsOf(id)),
    ]);
    this.remember(id, loading);
    void loading.then(([store]) => {
      const record = this.runs.get(id);
      if (record && record.current === null)
        noteProgress(record, lastStepCountInLines(store.tail(LOG_TAIL)));
    });
    return loading;
  }

  async logs(id: string, query: LogsQuery): Promise<LogsResponse> {
    this.recordOf(id);
    if (query.tail !== undefined && (query.offset !== undefined || query.limit !== undefined))
      throw badInput(trainingMessages.tailAndOffset());
    const [store] = await this.storesOf(id);
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

  async metrics(id: string, after?: number, evalAfter?: number): Promise<MetricsResponse> {
    this.recordOf(id);
    const [, metrics] = await this.storesOf(id);
    return metrics.since(after, evalAfter);
  }

  /** Ends every process of the run (SIGTERM, SIGKILL after the grace period); answers after. */
  async cancel(id: string): Promise<RunInfo> {
    const record = this.recordOf(id);
    const active = this.active;
    if (!active || active.record.id !== id || !active.child)
      throw wrongState(trainingMessages.notRunning(id, record.state));
    if (!active.cancelRequested) {
      active.cancelRequested = true;
      record.phase = 'cancelling';
      active.store.append('[service] cancel requested: ending every process of the run');
      void this.endAll(active);
    }
    await active.ended;
    return publicView(record);
  }

  private async endAll(active: ActiveRun) {
    const note = (line: string) => active.store.append(line);
    const ok = await endTree(active.tree, this.config.killGraceMs, note);
    if (!ok) note('[service] some processes survived SIGKILL (stuck in the kernel?)');
  }

  /** Service shutdown: the active run is marked interrupted and all its processes ended. */
  async shutdown(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.cancelRequested = true;
    active.record.state = 'interrupted';
    active.record.error = 'The training service was stopped while this run was going.';
    void this.save(active.record);
    await this.endAll(active);
    await active.ended;
    await this.writer.flush();
  }
}
