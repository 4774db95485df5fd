/**
 * PUT /runs/{id}/evaluation: Compare's scores for an ended run's model card. The summary the
 * browser sent (validated by the shared RunEvaluationSchema before this runs) is written to
 * `<output_dir>/compare.json` (whole, then renamed into place: a newer one replaces the older),
 * then the card is made again by `model_card.py --rewrite` (model-card.ts), which reads it.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evaluationNotOfRun, type RunEvaluation } from '../../src/shared/run-evaluation';
import type { RunEvaluationResult } from '../../src/shared/training-api';
import type { ServiceConfig } from './config';
import { badInput } from './errors';
import { rewriteModelCard } from './model-card';
import type { SpawnFn } from './run-process';
import type { RunRecord } from './run-records';
import { choosePython } from './trainer-env';

/** The file training/model_card.py reads Compare's scores from. */
export const COMPARE_FILE = 'compare.json';

/** compare.json written atomically, then the card rewritten; answers the card's state. */
export async function saveRunEvaluation(
  config: ServiceConfig,
  spawnFn: SpawnFn,
  record: RunRecord,
  evaluation: RunEvaluation,
): Promise<RunEvaluationResult> {
  const problem = evaluationNotOfRun(record, evaluation);
  if (problem !== null) throw badInput(problem);
  const out = record.output_dir;
  const file = join(out, COMPARE_FILE);
  const partial = `${file}.partial`;
  try {
    await writeFile(partial, `${JSON.stringify(evaluation, null, 1)}\n`);
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
  const python = (await choosePython(config)).command;
  const card = await rewriteModelCard({ config, spawnFn, python, out });
  if (card.state === 'rewritten') return { run_id: record.id, card: 'rewritten', reason: null };
  if (card.state === 'failed')
    console.log(`Run ${record.id}: model card not rewritten with Compare's scores: ${card.reason}`);
  return { run_id: record.id, card: 'kept', reason: card.reason };
}
