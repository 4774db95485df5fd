/**
 * The runs domain the routes use, one object over the modules that each do one job:
 * run-registry.ts (the records and look-ups), run-lifecycle.ts (start, resume, cancel, shutdown,
 * recovery after a crash), run-stores.ts (the log and metric stores, an LRU of ended runs'),
 * run-queries.ts (log, metrics, split and data reads), run-command.ts (a request's command line
 * and its `--plan` run) and model-names.ts (a succeeded run's model id).
 */
import { spawn as nodeSpawn } from 'node:child_process';
import type {
  ArchiveKind,
  DatasetEntry,
  ExportRequest,
  LogsQuery,
  LogsResponse,
  MetricsResponse,
  PlanResponse,
  RunInfo,
  RunExports,
  RunSplit,
  RunEvaluationResult,
  TrainRequest,
} from '../../src/shared/training-api';
import { PLAN_TIMEOUT_MS } from '../../src/shared/service-http';
import type { ServiceConfig } from './config';
import { planRun } from './run-command';
import { RunLifecycle } from './run-lifecycle';
import type { SpawnFn } from './run-process';
import { RunQueries } from './run-queries';
import { GgufExports } from './gguf-exports';
import { busy, wrongState } from './errors';
import { publicView, type RunRecord } from './run-records';
import { RunRegistry } from './run-registry';
import { RunStores } from './run-stores';
import { saveRunEvaluation } from './run-evaluation';
import type { RunEvaluation } from '../../src/shared/run-evaluation';

export type { SpawnFn } from './run-process';

export class RunManager {
  private readonly registry: RunRegistry;
  private readonly lifecycle: RunLifecycle;
  private readonly queries: RunQueries;
  private readonly gguf: GgufExports;
  /** Set by the trainer environment: a set-up in progress blocks new runs. */
  settingUp: () => boolean = () => false;
  /** How long POST /train/plan waits for the trainer. */
  planTimeoutMs = PLAN_TIMEOUT_MS;

  constructor(
    private readonly config: ServiceConfig,
    private readonly spawnFn: SpawnFn = nodeSpawn,
  ) {
    this.registry = new RunRegistry(config.dataDir);
    const stores = new RunStores(this.registry, config.ringLines, () => this.lifecycle.active);
    this.lifecycle = new RunLifecycle(config, this.registry, stores, spawnFn, () =>
      this.settingUp(),
    );
    this.gguf = new GgufExports(config, spawnFn);
    this.queries = new RunQueries(this.registry, stores, (id) => this.gguf.of(id));
  }

  /** Loads the records on disk. */
  init(): void {
    this.registry.load();
  }

  /** Marks the runs a service that died left running as interrupted, ending their processes. */
  recover(): Promise<void> {
    return this.lifecycle.recover();
  }

  list(): RunInfo[] {
    return this.registry.list();
  }

  /** Records of every run (for the model listing). */
  records(): RunRecord[] {
    return this.registry.records();
  }

  get(id: string): RunInfo {
    return publicView(this.registry.recordOf(id));
  }

  /** The active run's id, if any. */
  get activeId(): string | null {
    return this.lifecycle.active?.record.id ?? null;
  }

  start(request: TrainRequest): Promise<RunInfo> {
    return this.lifecycle.start(request);
  }

  /** What the run would do (POST /train/plan), with the same checks as a start. */
  plan(request: TrainRequest): Promise<PlanResponse> {
    return planRun(this.config, request, this.spawnFn, this.planTimeoutMs);
  }

  /** Resumes a run that ended without its result from its newest checkpoint, as the same run. */
  resume(id: string): Promise<RunInfo> {
    return this.lifecycle.resume(id);
  }

  /** Ends every process of the run; answers once none is left. */
  cancel(id: string): Promise<RunInfo> {
    return this.lifecycle.cancel(id);
  }

  /** Service shutdown: the active run is marked interrupted and all its processes ended. */
  async shutdown(): Promise<void> {
    await Promise.all([this.lifecycle.shutdown(), this.gguf.shutdown()]);
  }

  split(id: string): Promise<RunSplit> {
    return this.queries.split(id);
  }

  dataset(id: string): Promise<DatasetEntry[]> {
    return this.queries.dataset(id);
  }

  exports(id: string): Promise<RunExports> {
    return this.queries.exports(id);
  }

  /** The path of a file the run offers for download (GET /runs/{id}/exports/gguf/{file}). */
  exportFile(id: string, file: string): Promise<string> {
    return this.queries.exportFile(id, file);
  }

  /**
   * POST /runs/{id}/exports: GGUF written from an ended run's merged model, without training
   * again; refused while the run runs (409), while a run trains (busy: one heavy job at a time),
   * and when merged/ is gone or holds no model (404, the path named).
   */
  async exportRun(id: string, request: ExportRequest): Promise<RunExports> {
    const record = this.registry.recordOf(id);
    if (record.state === 'running')
      throw wrongState(`Run ${id} is still running; ask for its exports once it has ended`);
    const active = this.activeId;
    if (active)
      throw busy(`Run ${active} is training; write GGUF once it has ended (one at a time)`);
    // The merged model must be one the run could offer for download (else 404, the cause named).
    await this.queries.exportArchive(id, 'merged');
    await this.gguf.start(record, request);
    return this.exports(id);
  }

  /**
   * PUT /runs/{id}/evaluation: Compare's scores into the run's compare.json and its model card
   * (run-evaluation.ts); refused while the run runs (409) and when merged/ is gone or holds no
   * model (404, the path named, as for POST /runs/{id}/exports).
   */
  async saveEvaluation(id: string, evaluation: RunEvaluation): Promise<RunEvaluationResult> {
    const record = this.registry.recordOf(id);
    if (record.state === 'running')
      throw wrongState(`Run ${id} is still running; its model card is written once it has ended`);
    await this.queries.exportArchive(id, 'merged');
    return saveRunEvaluation(this.config, this.spawnFn, record, evaluation);
  }

  /** A zip of the run's adapter or merged model (GET /runs/{id}/exports/archive/{kind}). */
  exportArchive(id: string, kind: ArchiveKind) {
    return this.queries.exportArchive(id, kind);
  }

  logs(id: string, query: LogsQuery): Promise<LogsResponse> {
    return this.queries.logs(id, query);
  }

  metrics(id: string, after?: number, evalAfter?: number): Promise<MetricsResponse> {
    return this.queries.metrics(id, after, evalAfter);
  }
}
