/**
 * The reference trainer, training/finetune.py, where torch/transformers/peft are missing (as on
 * this machine): it fails fast, naming the packages and the install command, and through the
 * service the run is failed with that message in its log.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainResponse } from '../../src/shared/training-api';
import { startTestService, type TestService } from './helpers';

const SCRIPT = resolve(import.meta.dirname, '..', '..', 'training', 'finetune.py');
const python = process.env.TRAINING_PYTHON ?? 'python3';
const hasPython = spawnSync(python, ['--version']).status === 0;
const hasTorch =
  hasPython && spawnSync(python, ['-c', 'import torch, transformers, peft']).status === 0;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ python, scriptRoots: [resolve(SCRIPT, '..')] });
});
afterAll(() => svc.close());

describe.skipIf(!hasPython || hasTorch)('training/finetune.py without its packages', () => {
  it('exits fast with code 2 naming the missing packages', () => {
    const started = Date.now();
    const result = spawnSync(python, [SCRIPT, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0); // --help works without the packages
    expect(result.stdout).toMatch(/--base_model/);
    const run = spawnSync(
      python,
      [SCRIPT, '--data_file', 'x.json', '--output_dir', 'out', '--max_steps', '1'],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Missing Python packages: torch, transformers, peft/);
    expect(run.stderr).toMatch(/pip install -r training\/requirements\.txt/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('through the service: the run fails with exit code 2 and the reason in its log', async () => {
    const reply = await svc.train({ script_path: SCRIPT });
    expect(reply.status, reply.text).toBe(200);
    const id = (reply.json as TrainResponse).run_id;
    const ended = await svc.waitForEnd(id);
    expect(ended).toMatchObject({ state: 'failed', exit_code: 2 });
    const logs = await svc.request({ path: `/logs/${id}?tail=10` });
    expect((logs.json as { lines: string[] }).lines.join('\n')).toMatch(
      /Missing Python packages: torch, transformers, peft/,
    );
  });
});
