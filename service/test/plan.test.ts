/**
 * POST /train/plan: the trainer run with `--plan` and the request's flags (the interpreter, not
 * the launcher), its plan line answered with the device's memory; the trainer's `error: …` line
 * is a 400 with its words, a trainer that does not answer in time a 504, a request the schema or
 * the path confinement refuses a 400 before anything runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanResponseSchema } from '../../src/shared/training-api';
import { launcherProcesses, launcherShape } from '../src/run-command';
import { FIXTURES, serviceForFile, startTestService, validBody, type TestService } from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const plan = (patch: Record<string, unknown> = {}) =>
  svc.request({
    method: 'POST',
    path: '/train/plan',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(validBody({ script_path: join(FIXTURES, 'plan-trainer.mjs'), ...patch })),
  });
const error = (json: unknown) => (json as { error: string }).error;

describe('POST /train/plan', () => {
  it('answers the trainer plan with the device memory; the flags are the run flags plus --plan', async () => {
    const before = svc.spawned.length;
    const reply = await plan({ max_len: 512, max_steps: 77, batch_size: 4, grad_accum: 2 });
    expect(reply.status, reply.text).toBe(200);
    const body = PlanResponseSchema.parse(reply.json);
    expect(body.plan).toMatchObject({ entries: 40, train: 36, held_out: 4, steps: 77 });
    expect(body.plan.too_long).toMatchObject({ count: 2, indices: [7, 19] });
    expect(body.device_memory_bytes).toBe(24 * 1024 ** 3);
    expect(body.device_name).toBe("this computer's memory (CPU)");
    const spawned = svc.spawned.slice(before);
    expect(spawned).toHaveLength(1);
    const args = spawned[0]?.args ?? [];
    expect(spawned[0]?.command).toBe(process.execPath);
    expect(args[1]).toBe('--plan');
    const sent: [string, string][] = [
      ['--max_len', '512'],
      ['--max_steps', '77'],
      ['--batch_size', '4'],
      ['--grad_accum', '2'],
      ['--data_file', svc.dataFile],
    ];
    for (const [flag, value] of sent) expect(args[args.indexOf(flag) + 1]).toBe(value);
    // No run was started or recorded.
    expect((await svc.request({ path: '/runs' })).json).toMatchObject({ runs: [], active: null });
  });

  it('a chat template reaches the trainer as one argument, byte for byte, for the plan and the run', async () => {
    const template =
      '{% for m in messages %}<|{{ m[\'role\'] }}|> "{{ m.content }}" $HOME `x` ;\n{% endfor %}\n';
    const before = svc.spawned.length;
    const planned = await plan({ chat_template: template });
    expect(planned.status, planned.text).toBe(200);
    const run = await svc.train(validBody({ chat_template: template }));
    expect(run.status, run.text).toBe(200);
    await svc.waitForEnd((run.json as { run_id: string }).run_id);
    const spawned = svc.spawned.slice(before);
    expect(spawned).toHaveLength(2);
    for (const { args } of spawned)
      expect(args[args.indexOf('--chat_template') + 1]).toBe(template);
    // The longest template the table allows, in 3-byte characters (90 kB as one argument) and in
    // characters JSON escapes as 6 bytes each (a 180 kB body), reaches the trainer whole.
    for (const longest of ['漢'.repeat(30_000), '\u0001'.repeat(30_000)]) {
      const reply = await plan({ chat_template: longest });
      expect(reply.status, reply.text.slice(0, 200)).toBe(200);
      const args = svc.spawned.at(-1)?.args ?? [];
      expect(args[args.indexOf('--chat_template') + 1]).toBe(longest);
    }
    const nul = await plan({ chat_template: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(error(nul.json)).toBe('Invalid body: chat_template must not contain NUL characters');
  });

  it('a started run keeps the options it was sent (GET /runs/{id} options)', async () => {
    const reply = await svc.train(validBody({ batch_size: 4, lr_scheduler: 'linear' }));
    expect(reply.status, reply.text).toBe(200);
    const { run_id } = reply.json as { run_id: string };
    const run = await svc.waitForEnd(run_id);
    expect(run.options).toEqual({
      max_len: 256,
      repeat: 30,
      max_steps: 5,
      lr: 2e-4,
      batch_size: 4,
      lr_scheduler: 'linear',
    });
  });

  it("the trainer's error line is a 400 with its words", async () => {
    const reply = await plan({ base_model: 'plan-error' });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toBe('data_file line 3: "completion" is missing');
  });

  it('a trainer that fails without an error line: 422 with its last line', async () => {
    const reply = await plan({ base_model: 'plan-noise' });
    expect(reply.status).toBe(422);
    expect(error(reply.json)).toBe(
      "The trainer's plan ended with exit code 1: KeyError: vocab_size",
    );
  });

  it('a trainer that does not answer in time is ended: 504', async () => {
    svc.service.runs.planTimeoutMs = 300;
    try {
      const started = Date.now();
      const reply = await plan({ base_model: 'plan-hang' });
      expect(reply.status).toBe(504);
      expect(error(reply.json)).toMatch(/did not finish planning within 0.3 s/);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      svc.service.runs.planTimeoutMs = 60_000;
    }
  });

  it('bad bodies and paths outside the roots are refused before anything runs', async () => {
    const before = svc.spawned.length;
    const epochs = await plan({ epochs: 0 });
    expect(epochs.status).toBe(400);
    expect(error(epochs.json)).toBe('Invalid body: epochs must be greater than 0');
    const accum = await plan({ grad_accum: 0 });
    expect(error(accum.json)).toBe('Invalid body: grad_accum must be greater than 0');
    const outside = await plan({ data_file: join(svc.outside, 'x.json') });
    expect(outside.status).toBe(400);
    expect(error(outside.json)).toMatch(/data_file/);
    expect(svc.spawned.length).toBe(before);
  });
});

describe("the plan counts the launcher's processes", () => {
  it("reads torchrun's and accelerate's process counts, in both spellings", () => {
    expect(launcherProcesses(null)).toBeNull();
    expect(launcherProcesses(['torchrun', '--standalone', '--nproc_per_node=4'])).toBe(4);
    expect(launcherProcesses(['torchrun', '--nproc-per-node', '2'])).toBe(2);
    expect(launcherProcesses(['accelerate', 'launch', '--num_processes', '8'])).toBe(8);
    expect(launcherProcesses(['torchrun', '--nproc_per_node=gpu'])).toBeNull();
    expect(launcherProcesses(['torchrun', '--standalone'])).toBeNull();
  });

  it('a service with a 4-process launcher plans with WORLD_SIZE 4 (the plan itself runs alone)', async () => {
    const multi = await startTestService({
      launcher: ['torchrun', '--standalone', '--nproc_per_node=4'],
    });
    try {
      const reply = await multi.request({
        method: 'POST',
        path: '/train/plan',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          validBody({ script_path: join(FIXTURES, 'plan-trainer.mjs'), max_steps: 5 }),
        ),
      });
      expect(reply.status, reply.text).toBe(200);
      expect(multi.spawned.at(-1)?.command).toBe(process.execPath);
      expect(multi.spawned.at(-1)?.env?.WORLD_SIZE).toBe('4');
    } finally {
      await multi.close();
    }
  });
});

describe('the plan knows an FSDP launcher', () => {
  it("reads accelerate's --use_fsdp, and distributed_type and num_processes from its config file", () => {
    const dir = join(FIXTURES, '..', '..', '..', 'training', 'launchers');
    expect(launcherShape(['accelerate', 'launch', '--use_fsdp', '--num_processes=2'], '/')).toEqual(
      { processes: 2, sharded: true },
    );
    // The repo's preset: FSDP, 2 processes unless the command line says otherwise.
    const preset = ['accelerate', 'launch', '--config_file', 'fsdp.yaml'];
    expect(launcherShape(preset, dir)).toEqual({ processes: 2, sharded: true });
    expect(launcherShape([...preset, '--num_processes', '4'], dir)).toEqual({
      processes: 4,
      sharded: true,
    });
    // DDP, and a config file that cannot be read: not sharded, the command line's count only.
    expect(launcherShape(['torchrun', '--nproc_per_node=4'], dir)).toEqual({
      processes: 4,
      sharded: false,
    });
    expect(launcherShape(['accelerate', 'launch', '--config_file=missing.yaml'], dir)).toEqual({
      processes: null,
      sharded: false,
    });
  });

  it("plans in the service's base folder with the launcher's config read from there: WORLD_SIZE and TRAINING_SHARDED", async () => {
    const multi = await startTestService({
      // The launcher double passes its --options on and runs the script (launcher.mjs).
      launcher: [
        process.execPath,
        join(FIXTURES, 'launcher.mjs'),
        '--config_file=launchers/fsdp.yaml',
      ],
    });
    try {
      const launchers = join(multi.config.baseDir, 'launchers');
      mkdirSync(launchers);
      writeFileSync(
        join(launchers, 'fsdp.yaml'),
        "compute_environment: LOCAL_MACHINE\ndistributed_type: 'FSDP' # shard\nnum_processes: 3\n",
      );
      const reply = await multi.request({
        method: 'POST',
        path: '/train/plan',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(validBody({ script_path: join(FIXTURES, 'plan-trainer.mjs') })),
      });
      expect(reply.status, reply.text).toBe(200);
      const spawned = multi.spawned.at(-1);
      expect(spawned?.env?.WORLD_SIZE).toBe('3');
      expect(spawned?.env?.TRAINING_SHARDED).toBe('fsdp');
      expect(spawned?.cwd).toBe(multi.config.baseDir);
      // A run starts there too: the launcher's relative config path means the same file.
      const run = await multi.train({ script_path: join(FIXTURES, 'args.mjs') });
      expect(run.status, run.text).toBe(200);
      expect(multi.spawned.at(-1)?.cwd).toBe(multi.config.baseDir);
      const ended = await multi.waitForEnd((run.json as { run_id: string }).run_id);
      expect(ended.state).toBe('succeeded');
    } finally {
      await multi.close();
    }
  });
});
