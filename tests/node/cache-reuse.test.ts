/**
 * Cache reuse is provably right: a three-turn conversation (greedy) gives exactly the same tokens
 * with and without the previous turn's KV cache (cut where the next prompt differs from it, as the
 * worker does), for every model family the tests have.
 *
 * Exported models (a trained export's `web/` folder, the "Training for real" issue) are checked
 * the same way: `CACHE_REUSE_MODELS=/path/to/web,/other/web npx vitest run tests/node/cache-reuse.test.ts`
 * (or add a row to FAMILIES below once the trainer's test export is generated in the repo).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCacheReuse } from './cache-reuse';
import { FAMILY, generateTinyModels, loadModel, serveForTransformers } from './family-models';

const TURNS = ['Write about music.', 'More.', 'The end.'];

interface Row {
  name: string;
  id: string;
  dir: string;
  /** How many of turns 2 and 3 must be given the previous cache (else the test proves nothing). */
  reuses: number;
  /** ... and, for a template that re-renders the cached tokens differently, cut. */
  mustCrop?: boolean;
  thinkClose?: string;
  dtype?: string;
}

const FAMILIES: Row[] = [
  // Its replies start with " word", which the template's trim re-renders differently: the cache
  // is cut at the reply's first token.
  { name: 'tiny Llama', ...FAMILY.llama, reuses: 2, mustCrop: true },
  { name: 'tiny Llama, replies starting with a bare word', ...FAMILY.llamaBare, reuses: 2 },
  { name: 'tiny gemma-like', ...FAMILY.gemma, reuses: 2 },
  // The R1 template drops earlier reasoning: the cache is cut where the previous reply began (on
  // turn 2 that keeps fewer than MIN_KEPT_TOKENS, so only turn 3 is given a cut cache).
  { name: 'tiny R1-like', ...FAMILY.r1, reuses: 1, mustCrop: true, thinkClose: '</think>' },
];
const EXPORTS: Row[] = (process.env.CACHE_REUSE_MODELS ?? '')
  .split(',')
  .map((dir) => dir.trim())
  .filter((dir) => dir && existsSync(join(dir, 'config.json')))
  .map((dir) => ({
    name: `export ${dir}`,
    id: `local/export-${basename(dir.replace(/\/web\/?$/, ''))}`,
    dir,
    reuses: 0,
    dtype: process.env.CACHE_REUSE_DTYPE ?? 'fp32',
  }));
const ROWS = [...FAMILIES, ...EXPORTS];

let hub: Awaited<ReturnType<typeof serveForTransformers>>;

beforeAll(async () => {
  generateTinyModels();
  hub = await serveForTransformers(Object.fromEntries(ROWS.map((r) => [r.id, r.dir])));
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe('cache reuse gives the same tokens as a full recompute (three turns, greedy)', () => {
  it.each(ROWS)(
    '$name',
    async (row) => {
      const { tokenizer, model } = await loadModel(row.id, row.dtype);
      try {
        const { withReuse, without } = await compareCacheReuse(model, tokenizer, {
          modelId: row.id,
          turns: TURNS,
          maxNewTokens: 10,
          ...(row.thinkClose ? { thinkClose: row.thinkClose } : {}),
        });
        expect(withReuse.replies).toEqual(without.replies);
        expect(withReuse.texts).toEqual(without.texts);
        expect(without.reused).toBe(0);
        // Otherwise the comparison would prove nothing about reuse.
        expect(withReuse.reused).toBeGreaterThanOrEqual(row.reuses);
        if (row.mustCrop) expect(withReuse.cropped).toBeGreaterThanOrEqual(1);
      } finally {
        await model.dispose();
      }
    },
    60_000,
  );
});
