/**
 * GET|HEAD /runs/{id}/exports/archive/{kind} on folders the fixture trainer wrote and this test
 * changed: a merged model past 2 GB (a sparse file) streamed as a ZIP64 zip without buffering,
 * checked by Python's zipfile; what is never packed (a link leading out, a subfolder, the run's
 * records); the merged folder deleted; a failed run (its adapter offered, its merged model not).
 */
import { execFileSync } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { RunExportsSchema, type RunArchive } from '../../src/shared/training-api';
import { serviceForFile, tempDir, trainToEnd, type TestService } from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const archivesOf = async (id: string) => {
  const reply = await svc.request({ path: `/runs/${id}/exports` });
  expect(reply.status).toBe(200);
  const [adapter, merged] = RunExportsSchema.parse(reply.json).archives;
  if (!adapter || !merged) throw new Error('two archives expected');
  return { adapter, merged };
};

/** Python's zipfile on the zip: its names and sizes, after checking every file's CRC. */
function unzipped(file: string): [string, number][] {
  const script = [
    'import json, sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    'bad = z.testzip()',
    'assert bad is None, bad',
    'print(json.dumps([[i.filename, i.file_size] for i in z.infolist()]))',
  ].join('\n');
  const out = execFileSync('python3', ['-c', script, file], { encoding: 'utf8' });
  const parsed: unknown = JSON.parse(out);
  if (!Array.isArray(parsed)) throw new Error(`zipfile said ${out}`);
  return parsed.map((entry) => {
    if (!Array.isArray(entry)) throw new Error(`zipfile said ${out}`);
    return [String(entry[0]), Number(entry[1])];
  });
}

/**
 * Downloads the archive into `file`, streaming, while sampling this process's resident memory
 * (the service runs in it): the status, the Content-Length and the most memory added.
 */
async function download(path: string, file: string) {
  const before = process.memoryUsage().rss;
  let most = 0;
  const sampler = setInterval(() => {
    most = Math.max(most, process.memoryUsage().rss - before);
  }, 50);
  try {
    return await new Promise<{ status: number; length: string | undefined; grew: number }>(
      (ok, fail) => {
        const req = request({ host: '127.0.0.1', port: svc.port, path }, (res) => {
          pipeline(res, createWriteStream(file)).then(
            () =>
              ok({
                status: res.statusCode ?? 0,
                length: res.headers['content-length'],
                grew: most,
              }),
            fail,
          );
        });
        req.on('error', fail);
        req.end();
      },
    );
  } finally {
    clearInterval(sampler);
  }
}

describe('archives of a run written here', () => {
  it('a merged model past 2 GB is listed, then streamed as a zip of exactly that size (ZIP64) that zipfile reads; memory stays flat', async () => {
    const run = await trainToEnd(svc, {});
    const merged = join(run.output_dir, 'merged');
    // A 2.2 GB weights file that takes no disk: a sparse file (zeros), read like any other.
    const big = 2_200_000_000;
    truncateSync(join(merged, 'model.safetensors'), big);
    // Never packed: a link that leads out of merged/, a subfolder, a hidden file.
    const outside = tempDir('archives-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'not the model');
    symlinkSync(join(outside, 'secret.txt'), join(merged, 'secret.txt'));
    mkdirSync(join(merged, 'checkpoint-1'));
    writeFileSync(join(merged, '.hidden'), 'x');

    const { merged: listed } = await archivesOf(run.id);
    expect(listed).toMatchObject({ name: `${run.id}-merged.zip`, files: 6, reason: null });
    expect(listed.bytes).toBeGreaterThan(big);
    const head = await svc.request({
      method: 'HEAD',
      path: `/runs/${run.id}/exports/archive/merged`,
    });
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([
      200,
      String(listed.bytes),
      0,
    ]);

    const folder = tempDir('archives-download-');
    const zip = join(folder, 'merged.zip');
    try {
      const got = await download(`/runs/${run.id}/exports/archive/merged`, zip);
      expect([got.status, got.length]).toEqual([200, String(listed.bytes)]);
      // Buffered, the response would hold 2.2 GB; streamed, it holds a few chunks.
      expect(got.grew).toBeLessThan(300 * 1024 * 1024);
      const entries = unzipped(zip);
      expect(entries).toEqual([
        [`${run.id}-merged/chat_template.jinja`, 2],
        [`${run.id}-merged/config.json`, 23],
        [`${run.id}-merged/generation_config.json`, 2],
        [`${run.id}-merged/model.safetensors`, big],
        [`${run.id}-merged/tokenizer.json`, 2],
        [`${run.id}-merged/tokenizer_config.json`, 2],
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);

  it('the adapter: its files and the tokenizer, not the run records; without adapter_config.json it is refused by name', async () => {
    const run = await trainToEnd(svc, { eval_fraction: 0.2 });
    const { adapter } = await archivesOf(run.id);
    expect(adapter).toMatchObject({ name: `${run.id}-adapter.zip`, files: 5, reason: null });
    const reply = await svc.request({ path: `/runs/${run.id}/exports/archive/adapter` });
    const folder = tempDir('archives-adapter-');
    try {
      writeFileSync(join(folder, 'a.zip'), reply.body);
      expect(unzipped(join(folder, 'a.zip')).map(([name]) => name)).toEqual(
        [
          'adapter_config.json',
          'adapter_model.safetensors',
          'chat_template.jinja',
          'tokenizer.json',
          'tokenizer_config.json',
        ].map((name) => `${run.id}-adapter/${name}`),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    rmSync(join(run.output_dir, 'adapter_config.json'));
    const missing: RunArchive = (await archivesOf(run.id)).adapter;
    const reason = `No LoRA adapter in ${run.output_dir} (adapter_config.json is missing)`;
    const check = { ok: true, max_logit_difference: 2.4e-7, reason: null };
    expect(missing).toEqual({ kind: 'adapter', name: null, bytes: null, files: 4, reason, check });
    const refused = await svc.request({ path: `/runs/${run.id}/exports/archive/adapter` });
    expect([refused.status, refused.json]).toMatchObject([404, { error: reason }]);
  });

  it("the adapter's check with PEFT: listed when it passed; refused with its reason when it failed or is not the trainer's report; a run from before the check is offered unchecked", async () => {
    const run = await trainToEnd(svc, {});
    const report = join(run.output_dir, 'adapter.check.json');
    const listed = await archivesOf(run.id);
    expect([listed.adapter.name, listed.adapter.check, listed.merged.check]).toEqual([
      `${run.id}-adapter.zip`,
      { ok: true, max_logit_difference: 2.4e-7, reason: null },
      null,
    ]);
    const failure =
      "the adapter's logits differ from merged/'s by up to 0.284 (tolerance 0.161) on the 52-token reference prompt: the adapter files do not hold the weights that were merged";
    writeFileSync(
      report,
      JSON.stringify({ ok: false, max_logit_difference: 0.284, tolerance: 0.161, reason: failure }),
    );
    const failed = (await archivesOf(run.id)).adapter;
    const reason = `Run ${run.id}'s LoRA adapter failed its check with PEFT (adapter.check.json): ${failure}`;
    expect(failed).toEqual({
      kind: 'adapter',
      name: null,
      bytes: null,
      files: 5,
      reason,
      check: { ok: false, max_logit_difference: 0.284, reason: failure },
    });
    const refused = await svc.request({ path: `/runs/${run.id}/exports/archive/adapter` });
    expect([refused.status, refused.json]).toMatchObject([404, { error: reason }]);
    // The merged model is still offered: only the adapter failed.
    expect((await archivesOf(run.id)).merged.name).toBe(`${run.id}-merged.zip`);

    writeFileSync(report, '{"ok": ');
    expect((await archivesOf(run.id)).adapter.reason).toBe(
      `Run ${run.id}'s LoRA adapter failed its check with PEFT (adapter.check.json): adapter.check.json is not the trainer's report (no "ok")`,
    );

    rmSync(report);
    const unchecked = (await archivesOf(run.id)).adapter;
    expect([unchecked.name, unchecked.check]).toEqual([`${run.id}-adapter.zip`, null]);
    const served = await svc.request({ path: `/runs/${run.id}/exports/archive/adapter` });
    expect(served.status).toBe(200);
  });

  it('the merged folder deleted: listed and refused with its path; a failed run offers its adapter, not its merged model', async () => {
    const run = await trainToEnd(svc, {});
    const merged = join(run.output_dir, 'merged');
    rmSync(merged, { recursive: true });
    const gone = `Run ${run.id}'s merged model folder ${merged} no longer exists (deleted or moved?)`;
    expect((await archivesOf(run.id)).merged.reason).toBe(gone);
    const refused = await svc.request({ path: `/runs/${run.id}/exports/archive/merged` });
    expect([refused.status, refused.json]).toMatchObject([404, { error: gone }]);

    const failed = await trainToEnd(svc, {}, { FIXTURE_EXIT: '1' });
    expect(failed.state).toBe('failed');
    const archives = await archivesOf(failed.id);
    expect(archives.adapter.reason).toBeNull();
    expect(archives.merged.reason).toBe(
      `Run ${failed.id} ended failed: its merged model may be incomplete.`,
    );
  });
});
