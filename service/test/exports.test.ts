/**
 * GET /runs/{id}/exports and GET|HEAD /runs/{id}/exports/gguf/{file} over gguf/ folders this test
 * writes as training/gguf_export.py does: a file left out by its check (listed with its failure,
 * never served even when a file of its name is on disk), a Modelfile left out, a symlink leading
 * out of gguf/, conditional GETs, a skipped export, a malformed export.json, a deleted output
 * folder.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunExportsSchema } from '../../src/shared/training-api';
import { noExportFile } from '../../src/shared/run-exports';
import { halfExport } from '../../src/shared/run-exports.fixtures';
import { serviceForFile, trainToEnd, type TestService } from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const exportsOf = async (id: string) => {
  const reply = await svc.request({ path: `/runs/${id}/exports` });
  return { status: reply.status, reply, gguf: () => RunExportsSchema.parse(reply.json).gguf };
};

const failure = "step 3: token 17 != PyTorch's 12 (margin 2.1)";

/** gguf/ as the trainer leaves it when F16 failed its check and no Modelfile could be written. */
function writeHalfExport(outputDir: string): string {
  const folder = join(outputDir, 'gguf');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  const q8 = Buffer.alloc(1000);
  q8.write('GGUF');
  writeFileSync(join(folder, 'm-Q8_0.gguf'), q8);
  // Not published: a file of its name on disk must still not be served.
  writeFileSync(join(folder, 'm-F16.gguf'), 'left behind');
  writeFileSync(
    join(folder, 'export.json'),
    JSON.stringify({
      format: 1,
      files: {
        F16: {
          file: 'm-F16.gguf',
          type: 'F16',
          bytes: 2000,
          passed: false,
          published: false,
          failure,
          tokens_agreed: 9,
          tokens_compared: 10,
          max_abs_diff: 0.9,
        },
        Q8_0: {
          file: 'm-Q8_0.gguf',
          type: 'Q8_0',
          bytes: 1000,
          passed: true,
          published: true,
          failure: null,
          tokens_agreed: 10,
          tokens_compared: 10,
          max_abs_diff: 0.04,
        },
      },
      published: ['Q8_0'],
      failed: ['F16'],
      modelfile: null,
      modelfile_skipped: 'the model has no chat template',
    }),
  );
  return folder;
}

describe('GET /runs/{id}/exports on gguf/ folders written here', () => {
  it('a file left out is listed with its failure and never served; the Modelfile left out says why', async () => {
    const run = await trainToEnd(svc, { gguf: 'both' });
    const folder = writeHalfExport(run.output_dir);
    const listed = await exportsOf(run.id);
    expect(listed.status).toBe(200);
    expect(listed.gguf()).toEqual(halfExport('m', { F16: 2000, Q8_0: 1000 }, failure));
    for (const file of ['m-F16.gguf', 'Modelfile']) {
      const refused = await svc.request({ path: `/runs/${run.id}/exports/gguf/${file}` });
      expect([refused.status, (refused.json as { error: string }).error]).toEqual([
        404,
        noExportFile(run.id, file),
      ]);
    }
    const path = `/runs/${run.id}/exports/gguf/m-Q8_0.gguf`;
    const sent = await svc.request({ path });
    expect([sent.status, sent.headers['content-length']]).toEqual([200, '1000']);
    const etag = String(sent.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const again = await svc.request({ path, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    // A published name whose file leads out of gguf/ is not followed.
    rmSync(join(folder, 'm-Q8_0.gguf'));
    symlinkSync(svc.dataFile, join(folder, 'm-Q8_0.gguf'));
    expect((await svc.request({ path })).status).toBe(404);
  });

  it('skipped: gguf.skipped.json says why; a malformed export.json is a 422 naming it', async () => {
    const run = await trainToEnd(svc, { gguf: 'Q8_0' });
    rmSync(join(run.output_dir, 'gguf'), { recursive: true });
    const reason = 'the model type gpt2 has no GGUF writer here (known: llama, qwen2, qwen3)';
    writeFileSync(join(run.output_dir, 'gguf.skipped.json'), JSON.stringify({ reason }));
    expect((await exportsOf(run.id)).gguf()).toEqual({
      state: 'skipped',
      reason,
      files: [],
      modelfile: null,
      modelfile_skipped: null,
    });
    mkdirSync(join(run.output_dir, 'gguf'));
    const report = join(run.output_dir, 'gguf', 'export.json');
    writeFileSync(report, '{"files": {"Q4_K": {}}}');
    const bad = await exportsOf(run.id);
    expect([bad.status, (bad.reply.json as { error: string }).error]).toEqual([
      422,
      `${report}: files.Q4_K is not a GGUF entry (types: F16, Q8_0)`,
    ]);
  });

  it('a run whose output folder was deleted: 404 naming the folder', async () => {
    const run = await trainToEnd(svc, { gguf: 'both' });
    rmSync(run.output_dir, { recursive: true });
    const gone = await exportsOf(run.id);
    expect([gone.status, (gone.reply.json as { error: string }).error]).toEqual([
      404,
      `Run ${run.id}'s output folder ${run.output_dir} no longer exists (deleted or moved?)`,
    ]);
    const file = await svc.request({ path: `/runs/${run.id}/exports/gguf/Modelfile` });
    expect(file.status).toBe(404);
  });
});
