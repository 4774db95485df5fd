/**
 * POST /runs/{id}/exports: GGUF asked after the run. With the fixture exporter: one export per run
 * at a time, its files not served while it writes, a family it lacks (gguf.skipped.json with the
 * exporter's sentence), merged/ deleted, a training run active. With the real exporter
 * (training/gguf_export.py in the trainer's environment, checked in llama.cpp) on a tiny model.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunExportsSchema, type GgufExports } from '../../src/shared/training-api';
import {
  serviceForFile,
  startRun,
  startTestService,
  trainToEnd,
  writeRunCard,
  type TestService,
} from './helpers';

const REPO = resolve(import.meta.dirname, '../..');

let svc: TestService;
serviceForFile((started) => (svc = started));
afterEach(() => {
  delete process.env.FIXTURE_EXPORT_MS;
});

const ask = (service: TestService, id: string, gguf = 'Q8_0') =>
  service.request({
    method: 'POST',
    path: `/runs/${id}/exports`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ gguf }),
  });

async function ggufOf(service: TestService, id: string): Promise<GgufExports> {
  const reply = await service.request({ path: `/runs/${id}/exports` });
  return RunExportsSchema.parse(reply.json).gguf;
}

/**
 * Reads the listing until it is no longer "writing" (it returns as soon as it is: the long limit
 * is for a loaded machine, where starting the exporter's process alone can take seconds).
 */
async function settled(service: TestService, id: string, timeoutMs = 45_000) {
  const until = Date.now() + timeoutMs;
  let gguf = await ggufOf(service, id);
  while (gguf.state === 'writing' && Date.now() < until) {
    await new Promise((ok) => setTimeout(ok, 100));
    gguf = await ggufOf(service, id);
  }
  return gguf;
}

describe('POST /runs/{id}/exports with the fixture exporter', () => {
  it('one export per run at a time; its files are not served while it writes', async () => {
    const run = await trainToEnd(svc, {});
    process.env.FIXTURE_EXPORT_MS = '1500';
    expect((await ask(svc, run.id)).status).toBe(202);
    const again = await ask(svc, run.id);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      error: expect.stringMatching(new RegExp(`^Run ${run.id}'s GGUF is already being written`)),
    });
    const name = run.output_dir.split('/').pop() ?? '';
    const early = await svc.request({ path: `/runs/${run.id}/exports/gguf/${name}-Q8_0.gguf` });
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({
      error: expect.stringMatching(/GGUF Q8_0 is being written \(since .*checked in llama\.cpp/),
    });
    const gguf = await settled(svc, run.id);
    expect([gguf.state, gguf.files.map((file) => file.name)]).toEqual([
      'written',
      [`${name}-Q8_0.gguf`],
    ]);
    const served = await svc.request({ path: `/runs/${run.id}/exports/gguf/${name}-Q8_0.gguf` });
    expect(served.status).toBe(200);
  });

  it("a family the exporter lacks: skipped with the exporter's sentence, kept in gguf.skipped.json; asked again once fixed", async () => {
    const run = await trainToEnd(svc, {});
    const config = join(run.output_dir, 'merged', 'config.json');
    writeFileSync(config, '{"model_type": "gpt2"}');
    expect((await ask(svc, run.id)).status).toBe(202);
    const reason = 'the architecture gpt2 is not one the GGUF writer knows (llama, qwen2)';
    expect(await settled(svc, run.id)).toMatchObject({ state: 'skipped', reason, files: [] });
    const skipped = join(run.output_dir, 'gguf.skipped.json');
    expect(JSON.parse(readFileSync(skipped, 'utf8'))).toEqual({ reason });
    writeFileSync(config, '{"model_type": "llama"}');
    expect((await ask(svc, run.id, 'F16')).status).toBe(202);
    expect((await settled(svc, run.id)).state).toBe('written');
    expect(existsSync(skipped)).toBe(false);
  });

  it('merged/ deleted: refused naming the path; a run training: refused (busy)', async () => {
    const run = await trainToEnd(svc, {});
    const merged = join(run.output_dir, 'merged');
    rmSync(merged, { recursive: true });
    const gone = await ask(svc, run.id);
    expect([gone.status, gone.json]).toEqual([
      404,
      {
        error: `Run ${run.id}'s merged model folder ${merged} no longer exists (deleted or moved?)`,
      },
    ]);

    const other = await trainToEnd(svc, {});
    const training = await startRun(svc, 'hang.mjs', {});
    try {
      const busy = await ask(svc, other.id);
      expect([busy.status, busy.json]).toEqual([
        409,
        { error: `Run ${training} is training; write GGUF once it has ended (one at a time)` },
      ]);
    } finally {
      await svc.request({
        method: 'POST',
        path: `/runs/${training}/cancel`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      await svc.waitForEnd(training);
    }
  });
});

/** Processes whose command line names `text` (from /proc: nothing is left to chance). */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('POST /runs/{id}/exports and a service that stops', () => {
  it('the exporter and what it started end with the service; nothing is left', async () => {
    const own = await startTestService();
    let closed = false;
    try {
      const run = await trainToEnd(own, {});
      process.env.FIXTURE_EXPORT_MS = '60000';
      expect((await ask(own, run.id)).status).toBe(202);
      const merged = join(run.output_dir, 'merged');
      // The exporter's command line names the run's merged folder.
      for (let i = 0; i < 50 && processesNaming(merged).length === 0; i++)
        await new Promise((ok) => setTimeout(ok, 50));
      expect(processesNaming(merged).length).toBeGreaterThan(0);
      await own.close();
      closed = true;
      expect(processesNaming(merged)).toEqual([]);
    } finally {
      if (!closed) await own.close();
    }
  });
});

describe('POST /runs/{id}/exports with the real exporter', () => {
  it("writes a tiny model's GGUF with training/gguf_export.py, checked in llama.cpp, and serves it", async () => {
    const python = join(REPO, '.venv', 'bin', 'python');
    const runtime = join(REPO, '.llama-runtime', 'node_modules', 'node-llama-cpp');
    if (!existsSync(python) || !existsSync(runtime))
      throw new Error(
        'needs the trainer (npm run trainer:setup) and llama.cpp (npm run llama:setup)',
      );
    const real = await startTestService({
      ggufExportScript: join(REPO, 'training', 'gguf_export.py'),
      python,
    });
    try {
      const run = await trainToEnd(real, {});
      const merged = join(run.output_dir, 'merged');
      rmSync(merged, { recursive: true });
      execFileSync(
        python,
        [
          '-c',
          'import sys, tiny_models; tiny_models.make_tiny_model("llama", sys.argv[1])',
          merged,
        ],
        { cwd: join(REPO, 'training'), env: { ...process.env, HF_HUB_OFFLINE: '1' } },
      );
      // The card a trainer run leaves, and its record (the run's options and losses).
      writeRunCard(run.output_dir, python);
      const card = join(merged, 'README.md');
      expect(readFileSync(card, 'utf8')).toContain('### GGUF (llama.cpp, Ollama)\n\nNot asked for');
      const asked = await ask(real, run.id, 'both');
      expect(asked.status).toBe(202);
      const gguf = await settled(real, run.id, 240_000);
      const name = run.output_dir.split('/').pop() ?? '';
      expect(gguf.state, gguf.reason ?? '').toBe('written');
      expect(gguf.files.map((file) => [file.name, file.passed])).toEqual([
        [`${name}-F16.gguf`, true],
        [`${name}-Q8_0.gguf`, true],
      ]);
      expect(gguf.files[0]?.tokens_agreed).toBe(gguf.files[0]?.tokens_compared);
      expect(gguf.modelfile?.name).toBe('Modelfile');
      const file = await real.request({ path: `/runs/${run.id}/exports/gguf/${name}-F16.gguf` });
      expect([file.status, file.body.subarray(0, 4).toString()]).toEqual([200, 'GGUF']);
      expect(file.body.length).toBe(gguf.files[0]?.bytes);
      // The card was made again with the GGUF checks, its losses read from the run's record.
      const rewritten = readFileSync(card, 'utf8');
      expect(rewritten).toContain(`- ${name}-F16.gguf (F16): published, `);
      expect(rewritten).toContain(`- ${name}-Q8_0.gguf (Q8_0): published, `);
      expect(rewritten).toContain('llama.cpp against PyTorch: passed');
      expect(rewritten).toContain('ollama create NAME -f Modelfile');
      expect(rewritten).toContain('- Final training loss: 1.25 (step 1 of 1)');
    } finally {
      await real.close();
    }
  }, 300_000);
});
