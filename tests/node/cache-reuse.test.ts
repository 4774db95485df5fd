/**
 * Cache reuse is provably right: a three-turn conversation (greedy) gives exactly the same tokens
 * with and without the previous turn's KV cache, for every model family the tests have.
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

// Turns whose tiny-model replies re-encode token for token (a reply holding half a UTF-8 character
// or a word glued to the next does not, and reuse is then rightly skipped): reuse really happens.
const TURNS = ['Write about music.', 'More.', 'The end.'];

interface Row {
  name: string;
  id: string;
  dir: string;
  /** The tiny models are built so the template reproduces the cached tokens: reuse must happen. */
  mustReuse: boolean;
  thinkClose?: string;
  dtype?: string;
}

const FAMILIES: Row[] = [
  // Its replies start with " word", which the template's trim re-renders differently: reuse is
  // (rightly) skipped, and the replies must still be equal.
  { name: 'tiny Llama', ...FAMILY.llama, mustReuse: false },
  { name: 'tiny Llama, replies starting with a bare word', ...FAMILY.llamaBare, mustReuse: true },
  { name: 'tiny gemma-like', ...FAMILY.gemma, mustReuse: true },
  // The R1 template drops earlier reasoning, so the prompt differs from the cache: no reuse, same tokens.
  { name: 'tiny R1-like', ...FAMILY.r1, mustReuse: false, thinkClose: '</think>' },
];
const EXPORTS: Row[] = (process.env.CACHE_REUSE_MODELS ?? '')
  .split(',')
  .map((dir) => dir.trim())
  .filter((dir) => dir && existsSync(join(dir, 'config.json')))
  .map((dir) => ({
    name: `export ${dir}`,
    id: `local/export-${basename(dir.replace(/\/web\/?$/, ''))}`,
    dir,
    mustReuse: false,
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
        if (row.mustReuse) expect(withReuse.reused).toBeGreaterThanOrEqual(2);
      } finally {
        await model.dispose();
      }
    },
    60_000,
  );
});
