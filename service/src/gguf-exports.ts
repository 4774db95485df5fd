/**
 * GGUF asked for after a run (POST /runs/{id}/exports): the service runs the trainer's GGUF
 * exporter (training/gguf_export.py: write, check in llama.cpp, publish into `<output_dir>/gguf/`)
 * on the run's merged model, without training again. One export per run at a time; while it
 * writes, GET /runs/{id}/exports says so and its files are not served. When it ends without a
 * published file, `gguf.skipped.json` says why (the exporter's own sentence), as after a run.
 * Then the model card `merged/README.md` is made again with the GGUF checks by
 * `model_card.py --rewrite` (beside the exporter, in training/), from the record the run left
 * (`model_card.json`: the run's options and losses); a run from before that record keeps its card.
 */
import type { ChildProcess } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GgufWriting } from '../../src/shared/run-exports';
import type { ExportRequest } from '../../src/shared/training-api';
import type { ServiceConfig } from './config';
import { launchFailed, wrongState } from './errors';
import { KEEP_CHARS, SPAWN_OPTIONS, rewriteModelCard } from './model-card';
import { launchFor } from './paths';
import { endGroup } from './plan';
import type { SpawnFn } from './run-process';
import type { RunRecord } from './run-records';
import { choosePython } from './trainer-env';

/** The types each choice writes, in the exporter's order. */
const TYPES: Record<ExportRequest['gguf'], readonly string[]> = {
  Q8_0: ['Q8_0'],
  F16: ['F16'],
  both: ['F16', 'Q8_0'],
};

interface Writing extends GgufWriting {
  child: ChildProcess;
  ended: Promise<void>;
}

export class GgufExports {
  private readonly writing = new Map<string, Writing>();
  /** The service is stopping: an export that ends now is not followed by the card's rewrite. */
  private stopping = false;

  constructor(
    private readonly config: ServiceConfig,
    private readonly spawnFn: SpawnFn,
  ) {}

  /** The export being written for run `id`, if any. */
  of(id: string): GgufWriting | null {
    const writing = this.writing.get(id);
    return writing ? { types: writing.types, since: writing.since } : null;
  }

  /**
   * Starts the exporter on the run's `merged/` (already checked by the caller) into `gguf/`;
   * refused (409) while one is being written for the run.
   */
  async start(record: RunRecord, request: ExportRequest): Promise<void> {
    const id = record.id;
    const busy = this.of(id);
    if (busy) throw wrongState(`Run ${id}'s GGUF is already being written (since ${busy.since})`);
    const types = TYPES[request.gguf];
    const script = this.config.ggufExportScript;
    const python = (await choosePython(this.config)).command;
    const launch = await launchFor(script, python, null);

    const out = record.output_dir;
    // A reason from an earlier attempt would outlive this one's result.
    await rm(join(out, 'gguf.skipped.json'), { force: true });
    let child: ChildProcess;
    try {
      child = this.spawnFn(
        launch.command,
        [...launch.args, join(out, 'merged'), join(out, 'gguf'), '--types', types.join(',')],
        SPAWN_OPTIONS(dirname(script)),
      );
    } catch (error) {
      throw launchFailed(
        `Could not start ${launch.command}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    let said = '';
    const keep = (chunk: Buffer) => (said = (said + chunk.toString('utf8')).slice(-KEEP_CHARS));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const ended = new Promise<void>((done) => {
      const finish = (code: number | null, failure?: Error) => {
        void this.ended(out, code, said, failure)
          .then(() => this.rewriteCard(id, out, python))
          .finally(() => {
            this.writing.delete(id);
            done();
          });
      };
      child.once('error', (error) => finish(null, error));
      child.once('close', (code) => finish(code));
    });
    this.writing.set(id, { types, since: new Date().toISOString(), child, ended });
  }

  /** After the exporter: a failure's reason into gguf.skipped.json (the exporter's sentence). */
  private async ended(out: string, code: number | null, said: string, failure?: Error) {
    if (code === 0 && !failure) return;
    const lines = said
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    const own = lines.filter((line) => line.startsWith('no GGUF: ')).at(-1);
    const reason = failure
      ? `the GGUF export could not start: ${failure.message}`
      : own
        ? own.slice('no GGUF: '.length)
        : `the GGUF export ended with exit code ${code ?? 'none'}${lines.length ? `: ${lines.at(-1)}` : ''}`;
    await writeFile(join(out, 'gguf.skipped.json'), `${JSON.stringify({ reason }, null, 1)}\n`);
  }

  /**
   * After the exporter (and its skip reason): merged/README.md made again with what gguf/ holds
   * now (model-card.ts), when the run left its card's record; the export's state stays "writing"
   * until then, and the rewrite is the process a shutdown ends. A card that cannot be rewritten
   * keeps the old one and the service's log says why.
   */
  private async rewriteCard(id: string, out: string, python: string): Promise<void> {
    const writing = this.writing.get(id);
    if (!writing || this.stopping) return;
    const { config, spawnFn } = this;
    const result = await rewriteModelCard({
      config,
      spawnFn,
      python,
      out,
      started: (child) => (writing.child = child),
    });
    // A run from before the record keeps its card without a word.
    if (result.state === 'failed')
      console.log(`Run ${id}: model card not rewritten after the GGUF export: ${result.reason}`);
  }

  /** Service shutdown: every export's process group ended, and waited for. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    const all = [...this.writing.values()];
    // Nothing is published until the exporter's last rename: its `gguf.partial/` is removed by
    // the next attempt.
    for (const { child } of all) endGroup(child);
    await Promise.all(all.map((writing) => writing.ended));
  }
}
