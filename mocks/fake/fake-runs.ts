/**
 * The runs of mock mode, with the interface the service's RunManager gives its routes
 * (`RunsDomain`, src/shared/service-domain.ts) and the same refusals, in the same order, as the
 * same domain errors; the routes' HTTP rules, the log's paging and the plan's time-out are the
 * shared ones (src/shared/service-http.ts). Runs are simulated (fake-run.ts).
 */
import {
  badInput,
  busy,
  folderInUse,
  launchFailed,
  notFound,
  unreadable,
  wrongState,
} from '../../src/shared/domain-errors';
import {
  archiveRefusal,
  downloadableNames,
  type GgufWriting,
  exportWhileRunning,
  ggufExports,
  noExportFile,
} from '../../src/shared/run-exports';
import type { RunsDomain } from '../../src/shared/service-domain';
import {
  PLAN_TIMEOUT_MS,
  planTimedOut,
  readLog,
  type LogSource,
} from '../../src/shared/service-http';
import {
  ARCHIVE_KINDS,
  RESUMABLE_STATES,
  type ArchiveKind,
  type DatasetEntry,
  type ExportRequest,
  type LogsQuery,
  type LogsResponse,
  type MetricsResponse,
  type PlanResponse,
  type RunEvaluationResult,
  type RunExports,
  type RunInfo,
  type RunSplit,
  type TrainRequest,
  type TrainedModel,
} from '../../src/shared/training-api';
import { evaluationNotOfRun, type RunEvaluation } from '../../src/shared/run-evaluation';
import { trainingMessages } from '../../src/shared/training-messages';
import { mockPlan } from '../training-plan';
import type { FakeDatasets } from './fake-datasets';
import {
  advance,
  checkpointOf,
  finish,
  folderOf,
  modelIdOf,
  newRun,
  type MockRun,
} from './fake-run';
import { fakeArchive, fakeGgufFolder } from './fake-exports';
import { MOCK_DATASET, MOCK_MESSAGES, type TrainingScenario } from './fixtures';

export class FakeRuns implements RunsDomain {
  readonly runs = new Map<string, MockRun>();
  /** The last evaluation PUT /runs/{id}/evaluation kept, by run. */
  readonly evaluations = new Map<string, RunEvaluation>();
  /** The scenario new (and resumed) runs follow. */
  scenario: TrainingScenario;
  /** Whether the trainer's set-up is running (no run starts meanwhile). */
  settingUp: () => boolean = () => false;
  private counter = 0;

  constructor(
    private readonly datasets: FakeDatasets,
    private readonly initialScenario: TrainingScenario,
    private readonly stepsPerPoll: number,
  ) {
    this.scenario = initialScenario;
  }

  get activeId(): string | null {
    return this.active()?.info.id ?? null;
  }

  list(): RunInfo[] {
    return [...this.runs.values()].map((r) => r.info).reverse();
  }

  get(id: string): RunInfo {
    return this.runOf(id).info;
  }

  start(sent: TrainRequest): Promise<RunInfo> {
    if (this.scenario === 'fail-start') throw launchFailed(MOCK_MESSAGES.startFailed);
    // In the service's order: the output folder, then the set-up, then the active run.
    const running = this.active();
    if (running?.info.output_dir === sent.output_dir)
      throw folderInUse(trainingMessages.folderInUse(sent.output_dir, running.info.id));
    const taken = [...this.runs.values()].find(
      (r) => r.info.state === 'succeeded' && r.info.output_dir === sent.output_dir,
    );
    if (taken) throw folderInUse(MOCK_MESSAGES.outputTaken(sent.output_dir, taken.info.id));
    this.checkIdle();
    this.counter += 1;
    const run = newRun(`mock-run-${this.counter}`, sent, this.entriesOf(sent), this.scenario);
    this.runs.set(run.info.id, run);
    return Promise.resolve(run.info);
  }

  /**
   * The plan of the data file the mock holds; 400 when every entry is too long, as the trainer;
   * the service's 504 in the `plan-timeout` scenario.
   */
  plan(sent: TrainRequest): Promise<PlanResponse> {
    if (this.scenario === 'plan-timeout') throw planTimedOut(PLAN_TIMEOUT_MS);
    const entries = this.entriesOf(sent);
    const answer = mockPlan(sent, entries);
    if (answer.plan.too_long.count === entries.length)
      throw badInput(answer.plan.too_long.message ?? 'every entry is too long');
    return Promise.resolve(answer);
  }

  /**
   * The log's tail or a page of it, by the service's paging rule (readLog). Reading is the poll
   * that advances a running run by one step batch (a refused query reads nothing).
   */
  logs(id: string, query: LogsQuery): Promise<LogsResponse> {
    const run = this.runOf(id);
    const read = () => {
      advance(run, this.stepsPerPoll);
      return run.log;
    };
    const log: LogSource = {
      get total() {
        return run.log.length;
      },
      tail: (n) => read().slice(-n),
      page: (offset, limit) => read().slice(offset, offset + limit),
    };
    return readLog(log, query);
  }

  metrics(id: string, after = -1, evalAfter = -1): Promise<MetricsResponse> {
    const run = this.runOf(id);
    const points = run.metrics.filter((p) => p.seq > after);
    return Promise.resolve({
      points,
      next: points.at(-1)?.seq ?? after,
      seen: run.metrics.length,
      stride: 1,
      eval: run.evals.filter((p) => p.seq > evalAfter),
    });
  }

  /** The held-out entries: the trainer holds out the last share of them (at least one). */
  split(id: string): Promise<RunSplit> {
    const run = this.runOf(id);
    if (run.split === 'missing')
      throw notFound(MOCK_MESSAGES.noSplit(run.info.id, run.info.output_dir));
    if (run.split === 'malformed') throw unreadable(MOCK_MESSAGES.badSplit(run.info.id));
    const count = Math.max(1, Math.round(run.entries.length * run.evalFraction));
    const from = run.entries.length - count;
    return Promise.resolve({
      held_out: run.entries.slice(from),
      held_out_indices: run.entries.slice(from).map((_, i) => from + i),
      train_count: from,
      seed: 42,
    });
  }

  dataset(id: string): Promise<DatasetEntry[]> {
    return Promise.resolve(this.runOf(id).entries);
  }

  /** GGUF asked after the run (POST /runs/{id}/exports): written once its exports are read. */
  private readonly ggufWriting = new Map<string, GgufWriting & { choice: ExportRequest['gguf'] }>();

  /** The archives and the GGUF files a finished run holds (fake-exports.ts). */
  async exports(id: string): Promise<RunExports> {
    const run = this.runOf(id);
    const asked = this.ggufWriting.get(id);
    if (asked) {
      // Read once as "being written", then written, as a poll of the real service would see it.
      this.ggufWriting.delete(id);
      const listed = await this.exports(id);
      run.info.options = { ...run.info.options, gguf: asked.choice };
      return {
        ...listed,
        gguf: ggufExports(
          run.info,
          { report: null, skipped: null, modelfileBytes: null, writing: asked },
          '',
        ),
      };
    }
    const folder = run.info.state === 'succeeded' ? fakeGgufFolder(run.info, folderOf(run)) : null;
    const empty = { report: null, skipped: null, modelfileBytes: null };
    const where = `${run.info.output_dir}/gguf/export.json`;
    const archives = await Promise.all(
      ARCHIVE_KINDS.map(async (kind) => (await fakeArchive(run.info, kind)).listed),
    );
    return { archives, gguf: ggufExports(run.info, folder ?? empty, where) };
  }

  /** Writes GGUF from an ended run's merged model, refused as the service refuses. */
  async exportRun(id: string, request: ExportRequest): Promise<RunExports> {
    const { info } = this.runOf(id);
    if (info.state === 'running')
      throw wrongState(`Run ${id} is still running; ask for its exports once it has ended`);
    if (this.activeId)
      throw busy(`Run ${this.activeId} is training; write GGUF once it has ended (one at a time)`);
    const { folder } = await fakeArchive(info, 'merged');
    const refusal = archiveRefusal(info, 'merged', folder);
    if (refusal !== null) throw notFound(refusal);
    const busyWith = this.ggufWriting.get(id);
    if (busyWith)
      throw wrongState(`Run ${id}'s GGUF is already being written (since ${busyWith.since})`);
    const types = request.gguf === 'both' ? ['F16', 'Q8_0'] : [request.gguf];
    this.ggufWriting.set(id, { types, since: new Date().toISOString(), choice: request.gguf });
    return this.exports(id);
  }

  /**
   * Compare's scores for a run's model card (PUT /runs/{id}/evaluation), refused as the service
   * refuses; the last one per run is kept in `evaluations` (the service's compare.json).
   */
  async saveEvaluation(id: string, evaluation: RunEvaluation): Promise<RunEvaluationResult> {
    const { info } = this.runOf(id);
    if (info.state === 'running')
      throw wrongState(`Run ${id} is still running; its model card is written once it has ended`);
    const { folder } = await fakeArchive(info, 'merged');
    const refusal = archiveRefusal(info, 'merged', folder);
    if (refusal !== null) throw notFound(refusal);
    const problem = evaluationNotOfRun(info, evaluation);
    if (problem !== null) throw badInput(problem);
    this.evaluations.set(id, evaluation);
    return { run_id: id, card: 'rewritten', reason: null };
  }

  /** A zip GET /runs/{id}/exports/archive/{kind} sends, refused as the service refuses. */
  async exportArchive(id: string, kind: ArchiveKind): Promise<{ name: string; bytes: Uint8Array }> {
    const { info } = this.runOf(id);
    const { listed, folder, zip } = await fakeArchive(info, kind);
    const refusal = archiveRefusal(info, kind, folder);
    if (refusal !== null) throw info.state === 'running' ? wrongState(refusal) : notFound(refusal);
    return { name: listed.name ?? '', bytes: zip };
  }

  /** A file GET /runs/{id}/exports/gguf/{file} sends: only a name the run's exports list. */
  async exportFile(id: string, file: string): Promise<Uint8Array> {
    const run = this.runOf(id);
    if (run.info.state === 'running') throw wrongState(exportWhileRunning(id));
    const { gguf } = await this.exports(id);
    const bytes = downloadableNames(gguf).includes(file)
      ? fakeGgufFolder(run.info, folderOf(run))?.files.get(file)
      : undefined;
    if (!bytes) throw notFound(noExportFile(id, file));
    return bytes;
  }

  cancel(id: string): Promise<RunInfo> {
    const run = this.runOf(id);
    if (run.info.state !== 'running')
      throw wrongState(trainingMessages.notRunning(id, run.info.state));
    run.log.push('[service] cancel requested: SIGTERM sent to every process of the run');
    finish(run, { state: 'cancelled', signal: 'SIGTERM' });
    return Promise.resolve(run.info);
  }

  /** Goes on from the newest checkpoint; a resumed `fail-run` run does not fail again. */
  resume(id: string): Promise<RunInfo> {
    const run = this.runOf(id);
    const { info } = run;
    this.checkIdle();
    if (!RESUMABLE_STATES.includes(info.state))
      throw wrongState(trainingMessages.notResumable(id, info.state, info.output_dir));
    const later = [...this.runs.values()].find(
      (r) =>
        r !== run && r.info.output_dir === info.output_dir && r.info.started_at > info.started_at,
    );
    if (later) throw folderInUse(trainingMessages.folderTaken(info.output_dir, id, later.info.id));
    const step = checkpointOf(run);
    const folder = `${info.output_dir.replace(/\/+$/, '')}/checkpoints`;
    if (step === null) throw wrongState(trainingMessages.noCheckpoint(id, folder));
    run.scenario = this.scenario === 'fail-run' ? 'progress' : this.scenario;
    run.polls = 0;
    run.log.push(
      trainingMessages.resumedFrom(step),
      `resuming from step ${step} (${folder}/checkpoint-${step})`,
    );
    Object.assign(info, {
      state: 'running',
      phase: 'training',
      exit_code: null,
      signal: null,
      ended_at: null,
      current: step,
      resumable: false,
    } satisfies Partial<RunInfo>);
    delete info.error;
    return Promise.resolve(info);
  }

  /** GET /models: each `web-model` run's model, and its base export when one was asked. */
  models(): TrainedModel[] {
    return [...this.runs.values()]
      .filter((r) => r.info.model_id !== null)
      .reverse()
      .flatMap((r) => {
        const entry: TrainedModel = {
          id: modelIdOf(r),
          name: folderOf(r),
          run_id: r.info.id,
          base_model: r.info.base_model,
          output_dir: r.info.output_dir,
          variants: ['fp32'],
          bytes: 622_592,
          created_at: r.info.ended_at ?? new Date().toISOString(),
          role: 'fine-tuned',
        };
        const base: TrainedModel[] = r.info.base_model_id
          ? [{ ...entry, id: r.info.base_model_id, name: `${folderOf(r)}-base`, role: 'base' }]
          : [];
        return [entry, ...base];
      });
  }

  /** Forgets every run (between tests). */
  reset(): void {
    this.runs.clear();
    this.evaluations.clear();
    this.counter = 0;
    this.scenario = this.initialScenario;
  }

  private active(): MockRun | undefined {
    return [...this.runs.values()].find((r) => r.info.state === 'running');
  }

  private runOf(id: string): MockRun {
    const run = this.runs.get(id);
    if (!run) throw notFound(trainingMessages.noRun(id));
    return run;
  }

  private checkIdle(): void {
    if (this.settingUp()) throw busy(trainingMessages.settingUp());
    const running = this.active();
    if (running) throw busy(trainingMessages.runActive(running.info.id, running.info.started_at));
  }

  private entriesOf(sent: TrainRequest): DatasetEntry[] {
    return this.datasets.entriesOf(sent.data_file) ?? MOCK_DATASET;
  }
}
