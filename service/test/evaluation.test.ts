/**
 * What the Compare view reads from a run: its method and flags reach the trainer, held-out loss
 * lines become eval points, split.json (held-out entries) and the run's dataset are served (404 /
 * 422 when missing or malformed), a base export is listed as a model of its own, and an export
 * the trainer skipped says why.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MetricsResponseSchema,
  ModelListSchema,
  RunDatasetSchema,
  RunSplitSchema,
  type TrainResponse,
} from '../../src/shared/training-api';
import { hasTinyModel, startTestService, trainToEnd, type TestService } from './helpers';

const ENTRIES = Array.from({ length: 10 }, (_, i) => ({
  prompt: `Question ${i}?`,
  completion: `Answer ${i}.`,
}));

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  writeFileSync(svc.dataFile, JSON.stringify(ENTRIES));
});
afterAll(() => svc.close());

const get = (path: string) => svc.request({ path });
const error = (json: unknown) => (json as { error: string }).error;

describe('POST /train options', () => {
  it('method, eval_fraction and export_base become the trainer flags', async () => {
    const reply = await svc.train({ method: 'full', eval_fraction: 0.2, export_base: true });
    expect(reply.status, reply.text).toBe(200);
    const args = svc.spawned.at(-1)?.args ?? [];
    expect(args.slice(args.indexOf('--method'), args.indexOf('--method') + 2)).toEqual([
      '--method',
      'full',
    ]);
    expect(args).toContain('--export_base');
    expect(args[args.indexOf('--eval_fraction') + 1]).toBe('0.2');
    const id = (reply.json as TrainResponse).run_id;
    expect((await svc.waitForEnd(id)).method).toBe('full');
  });

  it('left out, no flag is sent (trainers without them keep working) and method is lora', async () => {
    const reply = await svc.train({});
    const args = svc.spawned.at(-1)?.args ?? [];
    expect(args).not.toContain('--method');
    expect(args).not.toContain('--eval_fraction');
    expect(args).not.toContain('--export_base');
    const id = (reply.json as TrainResponse).run_id;
    expect((await svc.waitForEnd(id)).method).toBe('lora');
  });

  it.each([
    [{ method: 'qlora' }, 'method must be "lora" or "full"'],
    [{ eval_fraction: 0.9 }, 'eval_fraction must be at most 0.5'],
    [{ eval_fraction: -0.1 }, 'eval_fraction must be at least 0'],
    [{ export_base: 'yes' }, 'export_base must be true or false'],
  ])('refuses %j: 400 naming the field', async (patch, message) => {
    const reply = await svc.train(patch);
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toContain(message);
  });
});

describe.skipIf(!hasTinyModel)('held-out questions', () => {
  it('eval points, split.json and the dataset of a finished run', async () => {
    const run = await trainToEnd(svc, {
      max_steps: 6,
      output_dir: 'out/eval-run',
      eval_fraction: 0.2,
    });
    expect(run.state).toBe('succeeded');
    expect(run.last_eval_loss).toBe(0.9);
    const metrics = MetricsResponseSchema.parse((await get(`/runs/${run.id}/metrics`)).json);
    // The Trainer's eval dict (step 4, no step key: the last step seen) and the JSON line.
    expect(metrics.eval).toEqual([
      { seq: 0, step: 4, loss: 1.5, time: expect.any(Number) as number },
      { seq: 1, step: 6, loss: 0.9, time: expect.any(Number) as number },
    ]);
    // The cursor: a poll after the first held-out point gets only the second, then none.
    const after0 = MetricsResponseSchema.parse(
      (await get(`/runs/${run.id}/metrics?eval_after=0`)).json,
    );
    expect(after0.eval?.map((p) => p.seq)).toEqual([1]);
    const after1 = MetricsResponseSchema.parse(
      (await get(`/runs/${run.id}/metrics?eval_after=1`)).json,
    );
    expect(after1.eval).toEqual([]);
    expect((await get(`/runs/${run.id}/metrics?eval_after=x`)).status).toBe(400);
    expect(metrics.points.every((p) => p.loss !== 1.5)).toBe(true);
    const split = RunSplitSchema.parse((await get(`/runs/${run.id}/split`)).json);
    expect(split).toEqual({
      seed: 42,
      held_out_indices: [8, 9],
      held_out: ENTRIES.slice(8),
      train_count: 8,
    });
    const dataset = RunDatasetSchema.parse((await get(`/runs/${run.id}/dataset`)).json);
    expect(dataset.entries).toEqual(ENTRIES);
  });

  it('no split.json: 404 saying nothing was held out', async () => {
    const run = await trainToEnd(svc, { max_steps: 3, output_dir: 'out/no-split' });
    const reply = await get(`/runs/${run.id}/split`);
    expect(reply.status).toBe(404);
    expect(error(reply.json)).toMatch(/held out no questions: .*split\.json does not exist/);
  });

  it('a malformed split.json: 422 naming the file', async () => {
    const run = await trainToEnd(
      svc,
      { max_steps: 3, output_dir: 'out/bad-split', eval_fraction: 0.1 },
      { FIXTURE_SPLIT: 'malformed' },
    );
    const reply = await get(`/runs/${run.id}/split`);
    expect(reply.status).toBe(422);
    expect(error(reply.json)).toMatch(/split\.json is not valid JSON/);
    writeFileSync(join(run.output_dir, 'split.json'), '{"held_out": [{"prompt": 1}]}');
    const wrong = await get(`/runs/${run.id}/split`);
    expect(wrong.status).toBe(422);
    expect(error(wrong.json)).toMatch(/split\.json is malformed: held_out\.0\.prompt must be/);
  });

  it('a data file that changed since: 422 naming it; one that is gone: 404', async () => {
    const run = await trainToEnd(svc, { max_steps: 2, output_dir: 'out/dataset-later' });
    writeFileSync(svc.dataFile, '[{"prompt": "q"}]');
    const reply = await get(`/runs/${run.id}/dataset`);
    expect(reply.status).toBe(422);
    expect(error(reply.json)).toMatch(/is not a dataset: entry 1: completion is required/);
    rmSync(svc.dataFile);
    const gone = await get(`/runs/${run.id}/dataset`);
    expect(gone.status).toBe(404);
    expect(error(gone.json)).toMatch(/data file .* no longer exists/);
    writeFileSync(svc.dataFile, JSON.stringify(ENTRIES));
  });

  it('export_base: the base export is a model of its own, served like the trained one', async () => {
    const run = await trainToEnd(svc, {
      max_steps: 2,
      output_dir: 'out/with-base',
      export_base: true,
    });
    expect(run.model_id).toBe('trained/with-base');
    expect(run.base_model_id).toBe('trained/with-base-base');
    const { models } = ModelListSchema.parse((await get('/models')).json);
    const mine = models.filter((m) => m.run_id === run.id);
    expect(mine.map((m) => [m.id, m.role])).toEqual(
      expect.arrayContaining([
        ['trained/with-base', 'fine-tuned'],
        ['trained/with-base-base', 'base'],
      ]),
    );
    const file = await get('/trained/with-base-base/resolve/main/config.json');
    expect(file.status).toBe(200);
  });

  it('an export the trainer skipped: the run says why instead of a missing folder', async () => {
    const run = await trainToEnd(
      svc,
      { max_steps: 2, output_dir: 'out/gpt2' },
      { FIXTURE_WEB: 'skipped' },
    );
    expect(run.state).toBe('succeeded');
    expect(run.model_id).toBeNull();
    expect(run.model_error).toBe(
      'The browser export published nothing: the architecture GPT2LMHeadModel (gpt2) is not supported',
    );
  });
});
