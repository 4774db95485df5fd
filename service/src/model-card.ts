/**
 * A run's model card (`merged/README.md`) made again by `training/model_card.py --rewrite`, from
 * the record the run left (`model_card.json`: its options and losses) and the reports on disk now
 * — after a GGUF export (gguf-exports.ts) and after Compare's scores (run-evaluation.ts). A run from
 * before that record keeps its card. The script sits beside the GGUF exporter, in training/.
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ServiceConfig } from './config';
import { launchFor } from './paths';
import type { SpawnFn } from './run-process';

/** What the run left for its model card to be written again (training/model_card.py RECORD). */
export const CARD_RECORD = 'model_card.json';

/** The last output kept for the reason a failed process gives. */
export const KEEP_CHARS = 4000;

/** How the exporter and the card's rewrite run: in `cwd`, their own process group, offline. */
export const SPAWN_OPTIONS = (cwd: string) =>
  ({
    cwd,
    shell: false,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1', HF_HUB_OFFLINE: '1' },
  }) satisfies SpawnOptions;

/**
 * The card rewritten, or kept as it was and why: the run left no record (`no-record`), or the
 * script failed (`failed`, with its own last words).
 */
export type CardRewrite =
  { state: 'rewritten' } | { state: 'no-record' | 'failed'; reason: string };

export interface RewriteCardOptions {
  config: ServiceConfig;
  spawnFn: SpawnFn;
  /** The interpreter (trainer-env.ts choosePython). */
  python: string;
  /** The run's output folder. */
  out: string;
  /** Told the rewrite's process as it starts (a shutdown ends it). */
  started?: (child: ChildProcess) => void;
}

/** `model_card.py --rewrite <out>`, when the run left its card's record; never throws. */
export async function rewriteModelCard({
  config,
  spawnFn,
  python,
  out,
  started,
}: RewriteCardOptions): Promise<CardRewrite> {
  const hasRecord = await access(join(out, CARD_RECORD)).then(
    () => true,
    () => false,
  );
  if (!hasRecord)
    return {
      state: 'no-record',
      reason: `the run left no ${CARD_RECORD} (a run from before the card kept its record), so its card is kept as it was`,
    };
  const script = join(dirname(config.ggufExportScript), 'model_card.py');
  const said: string[] = [];
  const code = await new Promise<number | string | null>((done) => {
    void launchFor(script, python, null).then(
      (launch) => {
        try {
          const child = spawnFn(
            launch.command,
            [...launch.args, '--rewrite', out],
            SPAWN_OPTIONS(dirname(script)),
          );
          started?.(child);
          child.stdout?.resume();
          child.stderr?.on('data', (chunk: Buffer) => said.push(chunk.toString('utf8')));
          child.once('error', (error) => done(error.message));
          child.once('close', done);
        } catch (error) {
          done(error instanceof Error ? error.message : String(error));
        }
      },
      (error: unknown) => done(error instanceof Error ? error.message : String(error)),
    );
  });
  if (code === 0) return { state: 'rewritten' };
  const output = said.join('').trim().slice(-KEEP_CHARS);
  const how = typeof code === 'string' ? code : `exit ${code ?? 'none'}`;
  return {
    state: 'failed',
    reason: `model_card.py --rewrite failed (${how})${output ? `: ${output}` : ''}`,
  };
}
