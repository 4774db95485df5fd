/**
 * A run's lifecycle, one at a time: started in named steps (check the request → prepare its folder
 * → spawn → wire output → finish), resumed from its newest checkpoint, cancelled, ended at
 * shutdown, and marked interrupted after a crash. Every process of a run is tracked
 * (proc-tree.ts), so cancel, shutdown and a restart after a crash end them all.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { RESUMABLE_STATES, type RunInfo, type TrainRequest } from '../../src/shared/training-api';
import { lastStepCountInLines } from '../../src/shared/training-progress';
import { trainingMessages } from '../../src/shared/training-messages';
import { checkpointsDir, fileSha256, newestCheckpoint } from './checkpoints';
import type { ServiceConfig } from './config';
import { busy, folderInUse, unreadable, wrongState } from './errors';
import { LogStore } from './log-store';
import { MetricsStore } from './metrics';
import { noteModel } from './model-names';
import { ProcessTree, endTree } from './proc-tree';
import { checkRequest, type RunCommand } from './run-command';
import {
  noteProgress,
  spawnChild,
  wireOutput,
  type ActiveRun,
  type RunContext,
  type SpawnFn,
} from './run-process';
import { newRecord, publicView, readLastLines, type RunRecord } from './run-records';
import type { RunRegistry } from './run-registry';
import type { RunStores } from './run-stores';
import { choosePython } from './trainer-env';

export class RunLifecycle {
  private current: ActiveRun | null = null;
  private readonly context: RunContext;

  constructor(
    private readonly config: ServiceConfig,
    private readonly registry: RunRegistry,
    private readonly stores: RunStores,
    spawnFn: SpawnFn,
    /** A trainer set-up in progress blocks new runs. */
    private readonly settingUp: () => boolean,
  ) {
    this.context = {
      config,
      spawnFn,
      save: (record) => registry.save(record),
      clearActive: () => {
        this.current = null;
      },
      finish: (active, code, signal) => this.finish(active, code, signal),
    };
  }

  /** The run going now, if any. */
  get active(): ActiveRun | null {
    return this.current;
  }

  async start(request: TrainRequest): Promise<RunInfo> {
    const command = await checkRequest(this.config, request);
    await this.checkOutputFree(command.outputDir);
    this.checkIdle();
    // What a resume checks the data file against.
    const dataSha256 = await fileSha256(command.dataFile).catch((error: unknown) => {
      throw unreadable(
        `Could not read the data file ${command.dataFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    const id = randomUUID();
    await mkdir(this.registry.dirOf(id), { recursive: true });
    // From this busy check to `this.current = …` nothing awaits, so two starts cannot both pass.
    try {
      this.checkIdle();
    } catch (error) {
      await rm(this.registry.dirOf(id), { recursive: true, force: true });
      throw error;
    }
    const active = this.prepare(id, request, command);
    active.record.data_sha256 = dataSha256;
    if (request.hub_token) {
      active.hubToken = request.hub_token;
      active.store.redact(request.hub_token);
    }
    await this.launch(active);
    return publicView(active.record);
  }

  /** A run never writes into a folder another run is using or has saved a result in. */
  private async checkOutputFree(outputDir: string) {
    const running = this.current?.record;
    if (running?.output_dir === outputDir)
      throw folderInUse(trainingMessages.folderInUse(outputDir, running.id));
    const entries = await readdir(outputDir).catch((): string[] => []);
    if (entries.length === 0) return;
    const owner = this.registry.newestIn(outputDir);
    throw folderInUse(
      trainingMessages.folderHolds(
        outputDir,
        owner ? trainingMessages.resultOf(owner.id, owner.state) : 'files',
      ),
    );
  }

  private checkIdle() {
    if (this.settingUp()) throw busy(trainingMessages.settingUp());
    if (!this.current) return;
    const { id, started_at } = this.current.record;
    throw busy(trainingMessages.runActive(id, started_at));
  }

  /** Step 2: the run's folder, log, metrics file and record. */
  private prepare(id: string, request: TrainRequest, command: RunCommand) {
    const record = newRecord(id, request, command);
    const store = new LogStore(this.registry.logOf(id), this.config.ringLines);
    const metrics = new MetricsStore(this.registry.metricsOf(id));
    this.registry.add(record);
    return this.activate(record, [store, metrics], Date.now(), command.python);
  }

  /** The run becomes the active one, its log and metrics open for writing. */
  private activate(
    record: RunRecord,
    [store, metrics]: [LogStore, MetricsStore],
    startedMs: number,
    python: string,
  ): ActiveRun {
    store.openForWriting();
    metrics.openForWriting();
    const active: ActiveRun = {
      record,
      child: null,
      store,
      metrics,
      tree: new ProcessTree(record.id),
      startedMs,
      cancelRequested: false,
      python,
      ended: Promise.resolve(),
    };
    this.current = active;
    return active;
  }

  /** Steps 3 and 4: the process, and its output wired into the run's stores. */
  private async launch(active: ActiveRun) {
    await spawnChild(this.context, active);
    wireOutput(this.context, active);
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
    if (state === 'succeeded') await noteModel(record, this.registry.records());
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
    this.stores.remember(record.id, Promise.resolve([store, active.metrics]));
    if (this.current === active) this.current = null;
    // After the service is idle: a save awaited in between let a client see the run ended yet be
    // refused as busy. Saves are queued in order, so this one never overwrites a later state.
    await this.registry.save(record);
  }

  /**
   * Resumes a run that ended without its result (failed, cancelled, interrupted) from its newest
   * checkpoint: the same command and arguments plus `--resume`, in the same output folder, as the
   * same run. Its log and metrics file go on; the trainer's step numbers continue the curve.
   */
  async resume(id: string): Promise<RunInfo> {
    const record = this.registry.recordOf(id);
    this.checkIdle();
    if (!RESUMABLE_STATES.includes(record.state))
      throw wrongState(trainingMessages.notResumable(id, record.state, record.output_dir));
    const later = this.registry.laterIn(record);
    if (later) throw folderInUse(trainingMessages.folderTaken(record.output_dir, id, later.id));
    const checkpoint = await newestCheckpoint(record.output_dir);
    if (!checkpoint)
      throw wrongState(trainingMessages.noCheckpoint(id, checkpointsDir(record.output_dir)));
    await this.checkSameData(record);
    const python = (await choosePython(this.config)).command;
    const stores = await this.stores.load(id);
    // From this busy check to `this.current = …` nothing awaits, so two resumes cannot both pass.
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
    // Metric times go on from where the run stopped.
    const active = this.activate(record, stores, Date.now() - previousMs, python);
    active.store.append(trainingMessages.resumedFrom(checkpoint.step));
    active.store.flush();
    this.stores.forget(id);
    await this.launch(active);
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

  /** Ends every process of the run (SIGTERM, SIGKILL after the grace period); answers after. */
  async cancel(id: string): Promise<RunInfo> {
    const record = this.registry.recordOf(id);
    const active = this.current;
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
    const active = this.current;
    if (!active) return;
    active.cancelRequested = true;
    active.record.state = 'interrupted';
    active.record.error = 'The training service was stopped while this run was going.';
    void this.registry.save(active.record);
    await this.endAll(active);
    await active.ended;
    await this.registry.flush();
  }

  /**
   * Runs recorded as running were left behind by a service that died: end whatever of them still
   * runs (by pid and start time, and the run marker), then mark them interrupted.
   */
  async recover(): Promise<void> {
    for (const record of this.registry.records()) {
      if (record.state !== 'running' || this.current?.record.id === record.id) continue;
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
      noteProgress(record, lastStepCountInLines(readLastLines(this.registry.logOf(record.id))));
      record.checkpoint_step = (await newestCheckpoint(record.output_dir))?.step ?? null;
      await this.registry.save(record);
    }
  }
}
