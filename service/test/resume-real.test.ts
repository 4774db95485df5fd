/**
 * Resume with the real trainer (training/finetune.py in the project's .venv, a tiny random-weight
 * Llama from training/tiny_models.py, the CPU): a run cancelled after a checkpoint is resumed
 * through POST /runs/{id}/resume as the same run; the trainer says from which step, the steps go
 * on from there to the end, and the run succeeds. The plan of a run (POST /train/plan) with the
 * real trainer, its disk figures included. Skipped without the trainer's packages.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PlanResponseSchema,
  type LogsResponse,
  type RunInfo,
  type TrainResponse,
} from '../../src/shared/training-api';
import {
  FIXTURES,
  ROOT,
  VENV_PYTHON,
  postJson,
  sleep,
  startTestService,
  validBody,
  venvHasTrainer,
  type TestService,
} from './helpers';

const hasTorch = venvHasTrainer(60_000);

let svc: TestService;
let tmp = '';
let model = '';

beforeAll(async () => {
  if (!hasTorch) return;
  tmp = mkdtempSync(join(tmpdir(), 'resume-real-'));
  model = join(tmp, 'llama');
  const made = spawnSync(
    VENV_PYTHON,
    ['-c', `import tiny_models; tiny_models.make_tiny_model("llama", ${JSON.stringify(model)})`],
    { cwd: join(ROOT, 'training'), encoding: 'utf8', env: { ...process.env, HF_HUB_OFFLINE: '1' } },
  );
  expect(made.status, made.stderr).toBe(0);
  svc = await startTestService({ python: VENV_PYTHON, killGraceMs: 5000 });
  const qa = Array.from({ length: 6 }, (_, i) => ({
    prompt: `Which harbour has berth ${i}?`,
    completion: `Berth ${i} is in harbour ${i % 3}.`,
  }));
  writeFileSync(svc.dataFile, JSON.stringify(qa));
}, 120_000);

afterAll(async () => {
  await svc?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function lines(id: string) {
  const reply = await svc.request({ path: `/logs/${id}?offset=0&limit=1000` });
  return (reply.json as LogsResponse).lines;
}

describe.skipIf(!hasTorch)('resume with training/finetune.py', () => {
  it('the plan: the disk it writes (checkpoints kept and the next, or the result) against the free space where it saves', async () => {
    const answer = (method: 'lora' | 'full') =>
      postJson(
        svc,
        '/train/plan',
        validBody({
          script_path: join(FIXTURES, 'finetune-no-export.py'),
          base_model: model,
          max_len: 64,
          max_steps: 10,
          method,
        }),
      );
    const [lora, full] = await Promise.all([answer('lora'), answer('full')]);
    expect([lora.status, full.status], lora.text + full.text).toEqual([200, 200]);
    const disk = (reply: typeof lora) => PlanResponseSchema.parse(reply.json).plan.disk;
    const [loraDisk, fullDisk] = [disk(lora), disk(full)];
    // Full fine-tuning checkpoints every weight with AdamW's moments; LoRA only its adapters.
    expect(fullDisk?.checkpoint_bytes).toBeGreaterThan(3 * (loraDisk?.checkpoint_bytes ?? 0));
    expect(fullDisk).toMatchObject({ checkpoints_kept: 2, fits: true });
    expect(fullDisk?.free_bytes).toBeGreaterThan(fullDisk?.total_bytes ?? Infinity);
  }, 120_000);

  it('cancelled after a checkpoint, resumed: the same run goes on from that step to the end', async () => {
    const reply = await svc.train({
      script_path: join(FIXTURES, 'finetune-no-export.py'),
      base_model: model,
      max_len: 64,
      repeat: 1,
      max_steps: 40,
      lr: 1e-2,
      save_steps: 2,
      eval_fraction: 0,
    });
    expect(reply.status, reply.text).toBe(200);
    const id = (reply.json as TrainResponse).run_id;
    // Past the first checkpoint (step 2 saved), then cancelled.
    for (let i = 0; i < 1200; i++) {
      const run = (await svc.request({ path: `/runs/${id}` })).json as RunInfo;
      if ((run.current ?? 0) >= 4 || run.state !== 'running') break;
      await sleep(100);
    }
    const cancelled = (await postJson(svc, `/runs/${id}/cancel`)).json as RunInfo;
    expect(cancelled).toMatchObject({ state: 'cancelled', resumable: true });
    const step = cancelled.checkpoint_step ?? 0;
    expect(step).toBeGreaterThanOrEqual(2);

    const resumed = await postJson(svc, `/runs/${id}/resume`);
    expect(resumed.status, resumed.text).toBe(200);
    const ended = await svc.waitForEnd(id, 180_000);
    expect(ended, (await lines(id)).join('\n')).toMatchObject({
      state: 'succeeded',
      current: 40,
      total: 40,
    });
    const log = await lines(id);
    const at = log.indexOf(`[service] resumed from step ${step}`);
    expect(at).toBeGreaterThan(0);
    const after = log.slice(at);
    expect(after.some((l) => l.startsWith(`resuming from step ${step} (`))).toBe(true);
    // The trainer's step lines after the resume start from the checkpoint (finetune.py restates
    // the step it resumed at), never below it, and go on to the end.
    const steps = after
      .filter((l) => /^step \d+\/40$/.test(l))
      .map((l) => Number(/^step (\d+)/.exec(l)?.[1]));
    expect(steps[0]).toBeGreaterThanOrEqual(step);
    expect(steps[0]).toBeLessThanOrEqual(step + 1);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(steps.at(-1)).toBe(40);
  }, 300_000);
});
