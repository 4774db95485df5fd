/**
 * The registry of runs: every run's record, loaded from `<data>/runs/<id>/run.json` at start and
 * saved there (atomically, in order) as it changes, the paths of each run's files, and the
 * look-ups the routes and the lifecycle make.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunInfo } from '../../src/shared/training-api';
import { trainingMessages } from '../../src/shared/training-messages';
import { notFound } from './errors';
import { RecordWriter, publicView, readRecord, type RunRecord } from './run-records';

const newestFirst = (a: RunRecord, b: RunRecord) => b.started_at.localeCompare(a.started_at);

export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();
  private readonly writer = new RecordWriter();
  private readonly runsDir: string;

  constructor(dataDir: string) {
    this.runsDir = join(dataDir, 'runs');
    mkdirSync(this.runsDir, { recursive: true });
  }

  /** Loads the records on disk (a folder without a readable record is not a run). */
  load(): void {
    for (const entry of readdirSync(this.runsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const record = readRecord(join(this.runsDir, entry.name, 'run.json'));
      if (record) this.runs.set(record.id, record);
    }
  }

  /** The run's own folder: its record, log and metrics file. */
  dirOf(id: string): string {
    return join(this.runsDir, id);
  }

  logOf(id: string): string {
    return join(this.dirOf(id), 'output.log');
  }

  metricsOf(id: string): string {
    return join(this.dirOf(id), 'metrics.jsonl');
  }

  /** Queues a write of the record; saves of one record land in the order they were made. */
  save(record: RunRecord): Promise<void> {
    return this.writer.save(this.dirOf(record.id), record);
  }

  /** Resolves once every queued save is written. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  add(record: RunRecord): void {
    this.runs.set(record.id, record);
  }

  find(id: string): RunRecord | undefined {
    return this.runs.get(id);
  }

  /** The run's record, or a 404 naming the id. */
  recordOf(id: string): RunRecord {
    const record = this.runs.get(id);
    if (!record) throw notFound(trainingMessages.noRun(id));
    return record;
  }

  /** Records of every run (for the model listing). */
  records(): RunRecord[] {
    return [...this.runs.values()];
  }

  /** Every run's public view, newest first. */
  list(): RunInfo[] {
    return this.records().sort(newestFirst).map(publicView);
  }

  /** The newest run that wrote into `outputDir`. */
  newestIn(outputDir: string): RunRecord | undefined {
    return this.records()
      .filter((r) => r.output_dir === outputDir)
      .sort(newestFirst)[0];
  }

  /** A run started after `record` in the same output folder. */
  laterIn(record: RunRecord): RunRecord | undefined {
    return this.records().find(
      (r) =>
        r.id !== record.id &&
        r.output_dir === record.output_dir &&
        r.started_at > record.started_at,
    );
  }
}
