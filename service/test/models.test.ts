/**
 * The loss curve (metric lines → GET /runs/{id}/metrics) and train → chat: GET /models lists
 * finished runs with a complete web/ folder, their files are served in the Hub's layout, and every
 * refusal (traversal, foreign origin, other methods, incomplete folders, a reused output folder).
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MetricsResponseSchema,
  ModelListSchema,
  ServiceInfoSchema,
  type RunInfo,
  type TrainResponse,
} from '../../src/shared/training-api';
import {
  FIXTURES,
  TINY_MODEL,
  hasTinyModel,
  postJson,
  trainToEnd,
  serviceForFile,
  type TestService,
} from './helpers';

const ORIGIN = 'http://127.0.0.1:5173';

let svc: TestService;
serviceForFile((started) => (svc = started));

const get = (path: string, headers: Record<string, string> = {}) => svc.request({ path, headers });

describe('GET /', () => {
  it('names the service, its version and where its API is documented', async () => {
    const reply = await get('/');
    expect(reply.status).toBe(200);
    const info = ServiceInfoSchema.parse(reply.json);
    expect(info.name).toMatch(/training service/);
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.docs).toMatch(/service\/README\.md/);
    expect(info.endpoints).toContain('GET /runs/{run_id}/metrics');
  });
});

describe.skipIf(!hasTinyModel)('metrics and models (needs npm run tiny-model)', () => {
  let run: RunInfo;
  beforeAll(async () => {
    run = await trainToEnd(svc, { max_steps: 10, output_dir: 'out/harbour-run' });
  });

  it('HF log dicts and JSON lines become points; eval, summary and malformed lines do not', async () => {
    expect(run).toMatchObject({ state: 'succeeded', metrics_count: 10 });
    expect(run.last_loss).toBeCloseTo(2.5 / (1 + 10 / 4), 4);
    const reply = await get(`/runs/${run.id}/metrics`);
    const metrics = MetricsResponseSchema.parse(reply.json);
    // A dict's step is the last `N/T` seen (stdout and stderr race, as in a real run), or its own
    // `step` (the JSON line): never decreasing, ending at the last step.
    const steps = metrics.points.map((p) => p.step);
    expect(steps).toHaveLength(10);
    expect(steps[1]).toBe(2);
    expect(steps.at(-1)).toBe(10);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(metrics.points[0]).toMatchObject({ seq: 0, loss: 2, grad_norm: 0.81, epoch: 0.1 });
    expect(metrics.points[1]).toMatchObject({ loss: 1.6667, grad_norm: null }); // the JSON line
    expect(metrics.points.every((p) => p.time >= 0)).toBe(true);
    expect(metrics).toMatchObject({ next: 9, seen: 10, stride: 1 });
    const newer = MetricsResponseSchema.parse((await get(`/runs/${run.id}/metrics?after=7`)).json);
    expect(newer.points.map((p) => p.seq)).toEqual([8, 9]);
    const none = MetricsResponseSchema.parse((await get(`/runs/${run.id}/metrics?after=9`)).json);
    expect(none).toMatchObject({ points: [], next: 9 });
    const bad = await get(`/runs/${run.id}/metrics?after=1e3`);
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toBe('Invalid query: after must be an integer');
    expect((await get('/runs/nope/metrics')).status).toBe(404);
  });

  it('lists the run at GET /models, named after its output folder', async () => {
    expect(run.model_error).toBeNull();
    expect(run.model_id).toBe('trained/harbour-run');
    const { models } = ModelListSchema.parse((await get('/models')).json);
    expect(models).toContainEqual({
      id: 'trained/harbour-run',
      name: 'harbour-run',
      run_id: run.id,
      base_model: run.base_model,
      output_dir: run.output_dir,
      variants: ['fp32'],
      bytes: expect.any(Number) as number,
      created_at: run.ended_at,
      role: 'fine-tuned',
    });
    expect(models.find((m) => m.run_id === run.id)?.bytes).toBeGreaterThan(600_000);
  });

  it('serves its files in the Hub layout: streamed, sized, ranged, CORS for allowed origins', async () => {
    const base = '/trained/harbour-run/resolve/main';
    const config = await get(`${base}/config.json`, { origin: ORIGIN });
    expect(config.status).toBe(200);
    expect(config.text).toBe(readFileSync(join(TINY_MODEL, 'config.json'), 'utf8'));
    expect(config.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(config.headers['access-control-expose-headers']).toMatch(/Content-Length/);
    const size = readFileSync(join(TINY_MODEL, 'onnx', 'model.onnx')).length;
    const head = await svc.request({ method: 'HEAD', path: `${base}/onnx/model.onnx` });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(size));
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.text).toBe('');
    const ranged = await get(`${base}/onnx/model.onnx`, { range: 'bytes=0-9' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 0-9/${size}`);
    expect(ranged.headers['content-length']).toBe('10');
    const beyond = await get(`${base}/onnx/model.onnx`, { range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
    // A revalidation (Cache-Control no-cache) costs a 304 while the file is unchanged.
    const etag = String(head.headers.etag);
    expect(etag).toMatch(/^(W\/)?".+"$/);
    expect(head.headers['cache-control']).toBe('no-cache');
    const again = await get(`${base}/onnx/model.onnx`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const preflight = await svc.request({
      method: 'OPTIONS',
      path: `${base}/onnx/model.onnx`,
      headers: { origin: ORIGIN, 'access-control-request-headers': 'range' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Range/);
  });

  it('refuses traversal before touching the disk, foreign origins, other methods', async () => {
    writeFileSync(join(svc.outside, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(svc.outside, 'secret.txt'), join(run.output_dir, 'web', 'leak.txt'));
    const base = '/trained/harbour-run/resolve/main';
    for (const [path, status] of [
      [`${base}/../adapter_config.json`, 400],
      [`${base}/..%2Fadapter_config.json`, 400],
      [`${base}/onnx%2F..%2F..%2Fadapter_config.json`, 400],
      [`${base}/%2e%2e/%2e%2e/run.json`, 400],
      [`${base}/.%2Fconfig.json`, 400],
      [`${base}/%2Fetc%2Fpasswd`, 400],
      [`${base}/onnx\\..\\config.json`, 400],
      [`${base}/leak.txt`, 404], // a symlink out of web/
      [`${base}/missing.json`, 404],
      ['/trained/harbour-run/resolve/v2/config.json', 404],
      ['/trained/..%2F..%2Fetc/resolve/main/config.json', 400],
      ['/trained/nobody/resolve/main/config.json', 404],
    ] as const) {
      const reply = await get(path);
      expect([path, reply.status]).toEqual([path, status]);
      expect(reply.text).not.toMatch(/TOP SECRET|"r": 16/);
    }
    const foreign = await get(`${base}/config.json`, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const post = await postJson(svc, `${base}/config.json`);
    expect(post.status).toBe(404);
    const put = await svc.request({
      method: 'DELETE',
      path: `${base}/config.json`,
      headers: { 'content-type': 'application/json', 'content-length': '2' },
      body: '{}',
    });
    expect(put.status, put.text).toBe(404);
    expect(existsSync(join(run.output_dir, 'web', 'config.json'))).toBe(true);
  });

  it('a web/ folder without tokenizer or weights: not listed, and the run says why', async () => {
    const noTokenizer = await trainToEnd(
      svc,
      { output_dir: 'out/no-tok' },
      { FIXTURE_WEB: 'no-tokenizer' },
    );
    expect(noTokenizer).toMatchObject({ state: 'succeeded', model_id: null });
    expect(noTokenizer.model_error).toBe('web/ lacks the tokenizer (tokenizer.json)');
    const noWeights = await trainToEnd(
      svc,
      { output_dir: 'out/no-w' },
      { FIXTURE_WEB: 'no-weights' },
    );
    expect(noWeights.model_error).toBe('web/ lacks the weights (no onnx/model*.onnx)');
    const skipped = await trainToEnd(svc, { output_dir: 'out/no-web' }, { FIXTURE_WEB: 'none' });
    expect(skipped.model_error).toMatch(/does not exist \(trained with --no-web-export\?\)/);
    const { models } = ModelListSchema.parse((await get('/models')).json);
    const ids = models.map((m) => m.run_id);
    for (const r of [noTokenizer, noWeights, skipped]) expect(ids).not.toContain(r.id);
    expect((await get('/trained/no-tok/resolve/main/config.json')).status).toBe(404);
  });

  it('a second run into the same output folder is refused; the first result is kept', async () => {
    const before = readFileSync(join(run.output_dir, 'web', 'config.json'), 'utf8');
    const reply = await svc.train({
      script_path: join(FIXTURES, 'hf-trainer.mjs'),
      output_dir: 'out/harbour-run',
    });
    expect(reply.status).toBe(409);
    expect((reply.json as { error: string }).error).toBe(
      `Output folder ${run.output_dir} already holds the result of run ${run.id} (succeeded); choose another output directory or delete that folder first.`,
    );
    expect(readFileSync(join(run.output_dir, 'web', 'config.json'), 'utf8')).toBe(before);
  });

  it('while a run writes a folder, a second start for it is refused', async () => {
    const first = await svc.train({ script_path: join(FIXTURES, 'hang.mjs'), output_dir: 'out/x' });
    const id = (first.json as TrainResponse).run_id;
    const second = await svc.train({ output_dir: 'out/x' });
    expect(second.status).toBe(409);
    expect((second.json as { error: string }).error).toMatch(
      /^Output folder .*out\/x is in use by the running run /,
    );
    await postJson(svc, `/runs/${id}/cancel`);
  });
});
