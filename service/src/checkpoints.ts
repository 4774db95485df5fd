/**
 * What a resume needs to know from disk: the newest complete checkpoint a trainer left in
 * `<output_dir>/checkpoints/` (a `checkpoint-N` folder with its `trainer_state.json`, the rule
 * finetune.py's `last_checkpoint` follows) and the sha256 of a run's data file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const CHECKPOINT = /^checkpoint-(\d{1,15})$/;

export interface Checkpoint {
  step: number;
  path: string;
}

/** The checkpoints folder of a run's output folder. */
export function checkpointsDir(outputDir: string): string {
  return join(outputDir, 'checkpoints');
}

/** The complete checkpoint with the highest step, or null (no folder, none complete). */
export async function newestCheckpoint(outputDir: string): Promise<Checkpoint | null> {
  const folder = checkpointsDir(outputDir);
  const names = await readdir(folder).catch((): string[] => []);
  const steps = names
    .map((name) => CHECKPOINT.exec(name)?.[1])
    .filter((step) => step !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  for (const step of steps) {
    const path = join(folder, `checkpoint-${step}`);
    const state = await stat(join(path, 'trainer_state.json')).catch(() => null);
    if (state?.isFile()) return { step, path };
  }
  return null;
}

/** The file's sha256, hex; streamed, so a large data file is never held in memory. */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
