/**
 * Run records on disk (`<data>/runs/<id>/run.json`, written atomically) and the public view of
 * one. A record keeps how the run was started and every process of it (pid + start time), so a
 * restarted service can end what a crashed one left running.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import {
  RESUMABLE_STATES,
  RunInfoSchema,
  startingRunInfo,
  type RunInfo,
  type TrainRequest,
} from '../../src/shared/training-api';
import { sentOptions } from '../../src/shared/training-fields';

export const RunRecordSchema = z.extend(RunInfoSchema, {
  pid: z.nullable(z.number()),
  command: z.string(),
  args: z.array(z.string()),
  /** Every process of the run seen so far: pid and /proc start time. */
  processes: z.array(z.object({ pid: z.number(), start: z.number() })),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** Fields added after the first release: older records on disk get these. */
const DEFAULTS = {
  phase: null,
  duration_ms: 0,
  last_loss: null,
  metrics_count: 0,
  model_id: null,
  model_error: null,
  processes: [],
  method: 'lora',
  base_model_id: null,
  last_eval_loss: null,
  data_sha256: null,
  checkpoint_step: null,
};

/** The record of a run starting now, from its request and its checked command line. */
export function newRecord(
  id: string,
  request: TrainRequest,
  run: { script: string; dataFile: string; outputDir: string; command: string; args: string[] },
): RunRecord {
  return {
    ...startingRunInfo(id, {
      script_path: run.script,
      base_model: request.base_model,
      output_dir: run.outputDir,
      data_file: run.dataFile,
      started_at: new Date().toISOString(),
    }),
    method: request.method ?? 'lora',
    base_model_id: null,
    last_eval_loss: null,
    options: sentOptions(request),
    pid: null,
    command: run.command,
    args: run.args,
    processes: [],
  };
}

export function readRecord(file: string): RunRecord | null {
  try {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof raw !== 'object' || raw === null) return null;
    return RunRecordSchema.parse({ ...DEFAULTS, ...raw });
  } catch {
    return null; // a half-written or foreign folder: not a run
  }
}

/**
 * Writes run.json atomically, off the request's path: writes of one record are queued, so the
 * file always ends as the last state saved; `flush` resolves once every queued write is done.
 */
export class RecordWriter {
  private tail: Promise<void> = Promise.resolve();

  save(dir: string, record: RunRecord): Promise<void> {
    const file = join(dir, 'run.json');
    const text = JSON.stringify(record, null, 2);
    this.tail = this.tail.then(async () => {
      try {
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      } catch (error) {
        // The run goes on in memory; only its record after a restart is affected.
        console.error(`Could not save ${file}:`, error instanceof Error ? error.message : error);
      }
    });
    return this.tail;
  }

  flush(): Promise<void> {
    return this.tail;
  }
}

export function publicView(record: RunRecord): RunInfo {
  const { pid: _pid, command: _command, args: _args, processes: _processes, ...info } = record;
  const end = record.ended_at ? Date.parse(record.ended_at) : Date.now();
  return {
    ...info,
    duration_ms: Math.max(0, end - Date.parse(record.started_at)),
    resumable: RESUMABLE_STATES.includes(record.state) && record.checkpoint_step != null,
  };
}

/** The last lines within the file's last 64 KiB (bounded work, for a record's progress). */
export function readLastLines(file: string): string[] {
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
