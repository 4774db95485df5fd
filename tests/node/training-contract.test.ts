/**
 * One contract, two implementations: the same API cases — every endpoint, its success and each
 * documented error — run against the real training service (service/, on a free loopback port,
 * fixture trainers) and against the MSW handlers of mock mode (mocks/training-handlers.ts), so the
 * mock cannot drift from the service. Status codes, response shapes (the shared schemas), error
 * texts and the log's paging must agree; where a text holds a path the service resolves, the case
 * says so.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrainingMock } from '../../mocks/training-handlers';
import { LOG_PAGE_LINES, PLAN_TIMEOUT_MS, planTimedOut } from '../../src/shared/service-http';
import { exportWhileRunning, noExportFile } from '../../src/shared/run-exports';
import { trainingMessages } from '../../src/shared/training-messages';
import {
  DatasetResponseSchema,
  HubCacheSchema,
  LOG_TAIL,
  LogsResponseSchema,
  MAX_LOG_LINES,
  MetricsResponseSchema,
  ModelListSchema,
  RunDatasetSchema,
  RunExportsSchema,
  RunInfoSchema,
  RunListSchema,
  RunSplitSchema,
  ServiceInfoSchema,
  TRAINING_PARAMS,
  TrainResponseSchema,
  TrainerInfoSchema,
  TrainerSetupSchema,
  type RunInfo,
} from '../../src/shared/training-api';
import {
  FIXTURES,
  rawRequest,
  sleep,
  startTestService,
  type TestService,
} from '../../service/test/helpers';

interface Answer {
  status: number;
  json: unknown;
}

interface Target {
  name: string;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<Answer>;
  /** A /train body: `quick` runs end by themselves, `long` ones run until cancelled. */
  body(kind: 'quick' | 'long', patch?: Record<string, unknown>): Record<string, unknown>;
  /** Waits for a quick run's end. */
  finish(id: string): Promise<RunInfo>;
  /**
   * Makes the trainer's plan miss its time (a trainer that never answers within a short limit;
   * the mock's `plan-timeout` scenario): the body to plan, the time allowed, and the undo.
   */
  slowPlan(): { body: Record<string, unknown>; timeoutMs: number; restore(): void };
  /** The data file the bodies name holds these entries. */
  entries: { prompt: string; completion: string }[];
  /** A file route's answer: its status, headers (lower-case names) and body's bytes. */
  file(method: 'GET' | 'HEAD', path: string, headers?: Record<string, string>): Promise<FileAnswer>;
  close(): Promise<void>;
}

interface FileAnswer {
  status: number;
  header(name: string): string | undefined;
  body: Buffer;
}

const ENTRIES = Array.from({ length: 10 }, (_, i) => ({
  prompt: `Question ${i}?`,
  completion: `Answer ${i}.`,
}));

const errorOf = (answer: Answer) =>
  typeof answer.json === 'object' && answer.json !== null && 'error' in answer.json
    ? String(answer.json.error)
    : `(no error field: ${JSON.stringify(answer.json)})`;

/** The `error` of a file route's JSON refusal. */
const fileError = (answer: FileAnswer) => {
  const json: unknown = JSON.parse(answer.body.toString());
  return errorOf({ status: answer.status, json });
};

let outputs = 0;

async function realTarget(): Promise<Target> {
  const svc: TestService = await startTestService();
  writeFileSync(svc.dataFile, JSON.stringify(ENTRIES));
  const call = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const reply = await rawRequest(svc.port, {
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': contentType ?? 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: reply.status, json: reply.json };
  };
  const body: Target['body'] = (kind, patch = {}) => ({
    script_path: join(FIXTURES, kind === 'quick' ? 'hf-trainer.mjs' : 'hang.mjs'),
    output_dir: `out/contract-${++outputs}`,
    data_file: 'data/input_data.json',
    base_model: 'meta-llama/Llama-3.2-3B-Instruct',
    ...TRAINING_PARAMS,
    max_steps: 3,
    ...patch,
  });
  const file: Target['file'] = async (method, path, headers = {}) => {
    const reply = await rawRequest(svc.port, { method, path, headers });
    return {
      status: reply.status,
      header: (name) => {
        const value = reply.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: reply.body,
    };
  };
  return {
    name: 'the real service',
    call,
    file,
    entries: ENTRIES,
    body,
    finish: (id) => svc.waitForEnd(id),
    slowPlan: () => {
      svc.service.runs.planTimeoutMs = 300;
      return {
        body: body('quick', {
          script_path: join(FIXTURES, 'plan-trainer.mjs'),
          base_model: 'plan-hang',
        }),
        timeoutMs: 300,
        restore: () => (svc.service.runs.planTimeoutMs = PLAN_TIMEOUT_MS),
      };
    },
    close: () => svc.close(),
  };
}

async function mockTarget(): Promise<Target> {
  const base = 'http://127.0.0.1:18000';
  const mock = createTrainingMock({ baseUrl: base, stepsPerPoll: 60 });
  const server = setupServer(...mock.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  const call = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': contentType ?? 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, json };
  };
  const body: Target['body'] = (_kind, patch = {}) => ({
    script_path: 'training/finetune.py',
    output_dir: `out/contract-${++outputs}`,
    data_file: 'service-data/datasets/contract.json',
    base_model: 'meta-llama/Llama-3.2-3B-Instruct',
    ...TRAINING_PARAMS,
    max_steps: 3,
    ...patch,
  });
  const file: Target['file'] = async (method, path, headers = {}) => {
    const response = await fetch(`${base}${path}`, { method, headers });
    return {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      body: Buffer.from(await response.arrayBuffer()),
    };
  };
  return {
    name: 'the mock (MSW)',
    call,
    file,
    entries: ENTRIES,
    body,
    // The mock's runs advance as their log is polled, as the page polls it.
    finish: async (id) => {
      for (let i = 0; i < 50; i++) {
        await call('GET', `/logs/${id}?tail=10`);
        const run = RunInfoSchema.parse((await call('GET', `/runs/${id}`)).json);
        if (run.state !== 'running') return run;
        await sleep(5);
      }
      throw new Error(`mock run ${id} did not end`);
    },
    slowPlan: () => {
      mock.setScenario('plan-timeout');
      return {
        body: body('quick'),
        timeoutMs: PLAN_TIMEOUT_MS,
        restore: () => mock.setScenario('progress'),
      };
    },
    close: async () => {
      server.close();
    },
  };
}

describe.each([
  ['the real service', realTarget],
  ['the mock (MSW)', mockTarget],
])('training API contract: %s', (_name, make) => {
  let target: Target;
  beforeAll(async () => {
    target = await make();
    // The mock's data file: the dataset stored through the API, as the page stores it.
    if (target.name.startsWith('the mock'))
      expect((await target.call('PUT', '/datasets/contract', ENTRIES)).status).toBe(200);
  });
  afterAll(() => target.close());

  it('GET / and GET /health', async () => {
    const info = await target.call('GET', '/');
    expect(info.status).toBe(200);
    expect(ServiceInfoSchema.parse(info.json).endpoints).toContain('POST /trainer/setup');
    expect(await target.call('GET', '/health')).toEqual({ status: 200, json: { ok: true } });
  });

  it('POST /train: bad bodies are 400 naming the field, other content types 415', async () => {
    const lr = await target.call('POST', '/train', target.body('quick', { lr: 2 }));
    expect([lr.status, errorOf(lr)]).toEqual([400, 'Invalid body: lr must be at most 1']);
    const extra = await target.call('POST', '/train', target.body('quick', { foo: 1 }));
    expect([extra.status, errorOf(extra)]).toEqual([
      400,
      'Invalid body: body has unknown field: foo',
    ]);
    const method = await target.call('POST', '/train', target.body('quick', { method: 'qlora' }));
    expect([method.status, errorOf(method)]).toEqual([
      400,
      'Invalid body: method must be "lora" or "full"',
    ]);
    const revision = await target.call(
      'POST',
      '/train',
      target.body('quick', { base_revision: 'my tag' }),
    );
    expect([revision.status, errorOf(revision)]).toEqual([
      400,
      'Invalid body: base_revision must be printable characters without spaces',
    ]);
    const form = await target.call('POST', '/train', 'a=1', 'text/plain');
    expect([form.status, errorOf(form)]).toEqual([
      415,
      'Content-Type must be application/json for POST requests (got "text/plain")',
    ]);
  });

  it('a run: started, listed as active, 409 for a second start and for the set-up, cancelled once', async () => {
    const started = await target.call('POST', '/train', target.body('long'));
    expect(started.status).toBe(200);
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    const run = RunInfoSchema.parse((await target.call('GET', `/runs/${id}`)).json);
    expect(run).toMatchObject({ id, state: 'running', method: 'lora' });
    const list = RunListSchema.parse((await target.call('GET', '/runs')).json);
    expect(list.active).toBe(id);
    expect(list.runs[0]?.id).toBe(id);

    const second = await target.call('POST', '/train', target.body('long'));
    expect(second.status).toBe(409);
    expect(errorOf(second)).toMatch(
      new RegExp(`^A training run is already in progress \\(run ${id}, started [^)]+\\)\\. `),
    );
    const setup = await target.call('POST', '/trainer/setup', {});
    expect([setup.status, errorOf(setup)]).toEqual([
      409,
      'A training run is in progress; set up the trainer once it has ended (its packages are in use).',
    ]);

    const cancelled = await target.call('POST', `/runs/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(RunInfoSchema.parse(cancelled.json).state).toBe('cancelled');
    const again = await target.call('POST', `/runs/${id}/cancel`, {});
    expect([again.status, errorOf(again)]).toEqual([
      409,
      `Run ${id} is not running (it is cancelled)`,
    ]);
  });

  it('a finished run: logs, metrics with held-out points, split, dataset; its folder is not reused', async () => {
    const started = await target.call(
      'POST',
      '/train',
      target.body('quick', { eval_fraction: 0.2 }),
    );
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    const run = await target.finish(id);
    expect(run.state).toBe('succeeded');

    const logs = LogsResponseSchema.parse((await target.call('GET', `/logs/${id}?tail=10`)).json);
    expect(logs.lines.length).toBeGreaterThan(0);
    const metrics = MetricsResponseSchema.parse(
      (await target.call('GET', `/runs/${id}/metrics`)).json,
    );
    expect(metrics.points.length).toBeGreaterThan(0);
    expect(metrics.eval?.length).toBeGreaterThan(0);
    // The held-out cursor: nothing after the last point held; a bad cursor is a 400.
    const lastEval = metrics.eval?.at(-1)?.seq ?? -1;
    const newer = MetricsResponseSchema.parse(
      (await target.call('GET', `/runs/${id}/metrics?eval_after=${lastEval}`)).json,
    );
    expect(newer.eval).toEqual([]);
    expect((await target.call('GET', `/runs/${id}/metrics?eval_after=1e3`)).status).toBe(400);
    const split = RunSplitSchema.parse((await target.call('GET', `/runs/${id}/split`)).json);
    expect(split.held_out).toHaveLength(2);
    expect(split.train_count).toBe(8);
    for (const entry of split.held_out) expect(target.entries).toContainEqual(entry);
    const dataset = RunDatasetSchema.parse((await target.call('GET', `/runs/${id}/dataset`)).json);
    expect(dataset.entries).toEqual(target.entries);

    const reuse = await target.call('POST', '/train', {
      ...target.body('quick'),
      output_dir: run.output_dir,
    });
    expect(reuse.status).toBe(409);
    expect(errorOf(reuse)).toMatch(
      new RegExp(
        `^Output folder .+ already holds the result of run ${id} \\(succeeded\\); choose another output directory or delete that folder first\\.$`,
      ),
    );
  });

  it('a run that held nothing out: split is 404 saying so', async () => {
    const started = await target.call('POST', '/train', target.body('quick', { eval_fraction: 0 }));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    await target.finish(id);
    const split = await target.call('GET', `/runs/${id}/split`);
    expect(split.status).toBe(404);
    expect(errorOf(split)).toMatch(new RegExp(`^Run ${id} held out no questions: `));
  });

  it('a run asked for GGUF: its exports listed, each file downloaded (Range, HEAD); names it does not list 404; while running 409', async () => {
    const long = await target.call('POST', '/train', target.body('long', { gguf: 'both' }));
    const { run_id: runningId } = TrainResponseSchema.parse(long.json);
    const pending = RunExportsSchema.parse(
      (await target.call('GET', `/runs/${runningId}/exports`)).json,
    );
    expect(pending.gguf).toMatchObject({ state: 'none', files: [], modelfile: null });
    expect(pending.gguf.reason).toMatch(/is still running/);
    const early = await target.file('GET', `/runs/${runningId}/exports/gguf/Modelfile`);
    expect([early.status, fileError(early)]).toEqual([409, exportWhileRunning(runningId)]);
    await target.call('POST', `/runs/${runningId}/cancel`, {});

    const started = await target.call('POST', '/train', target.body('quick', { gguf: 'both' }));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    const run = await target.finish(id);
    const name = run.output_dir.split('/').filter(Boolean).pop() ?? '';
    const listed = await target.call('GET', `/runs/${id}/exports`);
    expect(listed.status).toBe(200);
    const { gguf } = RunExportsSchema.parse(listed.json);
    expect(gguf).toMatchObject({ state: 'written', reason: null, modelfile_skipped: null });
    expect(gguf.files.map((f) => [f.name, f.type, f.bytes, f.passed])).toEqual([
      [`${name}-F16.gguf`, 'F16', 8192, true],
      [`${name}-Q8_0.gguf`, 'Q8_0', 4352, true],
    ]);
    expect(gguf.files[1]).toMatchObject({ tokens_agreed: 12, tokens_compared: 12, failure: null });
    expect(gguf.modelfile?.name).toBe('Modelfile');

    const path = `/runs/${id}/exports/gguf/${name}-Q8_0.gguf`;
    const whole = await target.file('GET', path);
    expect([whole.status, whole.body.length, whole.header('content-length')]).toEqual([
      200,
      4352,
      '4352',
    ]);
    expect(whole.body.subarray(0, 4).toString()).toBe('GGUF');
    expect(whole.header('content-disposition')).toBe(`attachment; filename="${name}-Q8_0.gguf"`);
    const part = await target.file('GET', path, { range: 'bytes=0-3' });
    expect([part.status, part.body.toString(), part.header('content-range')]).toEqual([
      206,
      'GGUF',
      'bytes 0-3/4352',
    ]);
    const head = await target.file('HEAD', path);
    expect([head.status, head.body.length, head.header('content-length')]).toEqual([
      200,
      0,
      '4352',
    ]);
    const beyond = await target.file('GET', path, { range: 'bytes=5000-' });
    expect([beyond.status, beyond.header('content-range')]).toEqual([416, 'bytes */4352']);
    const modelfile = await target.file('GET', `/runs/${id}/exports/gguf/Modelfile`);
    expect([modelfile.status, modelfile.body.length]).toEqual([200, gguf.modelfile?.bytes]);
    expect(modelfile.body.toString()).toMatch(new RegExp(`^FROM ./${name}-Q8_0.gguf\n`));

    // Only listed names: export.json is in gguf/ but not offered; a path is never followed.
    for (const file of ['export.json', 'other.gguf']) {
      const answer = await target.file('GET', `/runs/${id}/exports/gguf/${file}`);
      expect([answer.status, fileError(answer)]).toEqual([404, noExportFile(id, file)]);
    }
    for (const file of ['..%2Fadapter_config.json', '%2E%2E%2F%2E%2E%2Fpackage.json']) {
      const answer = await target.file('GET', `/runs/${id}/exports/gguf/${file}`);
      expect(answer.status, file).toBe(404);
      expect(fileError(answer)).toMatch(/offers no export file/);
    }

    const plain = await target.call('POST', '/train', target.body('quick'));
    const { run_id: plainId } = TrainResponseSchema.parse(plain.json);
    await target.finish(plainId);
    const none = RunExportsSchema.parse(
      (await target.call('GET', `/runs/${plainId}/exports`)).json,
    );
    expect(none.gguf).toMatchObject({ state: 'none', files: [] });
    expect(none.gguf.reason).toMatch(/^This run was not asked for GGUF/);
  });

  it('archives: the adapter and the merged model listed with their zip sizes, sent as zips of that length (HEAD too); while running 409; a full run has no adapter', async () => {
    const long = await target.call('POST', '/train', target.body('long'));
    const { run_id: runningId } = TrainResponseSchema.parse(long.json);
    const pending = RunExportsSchema.parse(
      (await target.call('GET', `/runs/${runningId}/exports`)).json,
    );
    for (const archive of pending.archives) {
      expect(archive).toMatchObject({ name: null, bytes: null });
      expect(archive.reason).toMatch(new RegExp(`^Run ${runningId} is still running`));
    }
    const early = await target.file('GET', `/runs/${runningId}/exports/archive/merged`);
    expect(early.status).toBe(409);
    expect(fileError(early)).toMatch(/is still running; its merged model is written once/);
    await target.call('POST', `/runs/${runningId}/cancel`, {});

    const started = await target.call('POST', '/train', target.body('quick'));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    await target.finish(id);
    const { archives } = RunExportsSchema.parse(
      (await target.call('GET', `/runs/${id}/exports`)).json,
    );
    expect(archives.map((a) => [a.kind, a.name, a.files, a.reason])).toEqual([
      ['adapter', `${id}-adapter.zip`, 5, null],
      ['merged', `${id}-merged.zip`, 6, null],
    ]);
    // The adapter carries its check with PEFT (adapter.check.json); the merged model none.
    expect(archives.map((a) => a.check)).toEqual([
      { ok: true, max_logit_difference: 2.4e-7, reason: null },
      null,
    ]);
    for (const archive of archives) {
      const path = `/runs/${id}/exports/archive/${archive.kind}`;
      const zip = await target.file('GET', path);
      expect([zip.status, zip.body.length, zip.header('content-length')]).toEqual([
        200,
        archive.bytes,
        String(archive.bytes),
      ]);
      expect(zip.header('content-disposition')).toBe(`attachment; filename="${archive.name}"`);
      // A zip: a local file header first; the end record's entry count is the listed count.
      expect(zip.body.readUInt32LE(0)).toBe(0x04034b50);
      const end = zip.body.subarray(zip.body.length - 22);
      expect([end.readUInt32LE(0), end.readUInt16LE(10)]).toEqual([0x06054b50, archive.files]);
      const head = await target.file('HEAD', path);
      expect([head.status, head.body.length, head.header('content-length')]).toEqual([
        200,
        0,
        String(archive.bytes),
      ]);
    }
    const unknown = await target.file('GET', `/runs/${id}/exports/archive/checkpoints`);
    expect(unknown.status).toBe(400);

    const full = await target.call('POST', '/train', target.body('quick', { method: 'full' }));
    const { run_id: fullId } = TrainResponseSchema.parse(full.json);
    await target.finish(fullId);
    const fullExports = RunExportsSchema.parse(
      (await target.call('GET', `/runs/${fullId}/exports`)).json,
    );
    expect(fullExports.archives[0]?.reason).toMatch(/^A full fine-tune has no LoRA adapter/);
    expect(fullExports.archives[1]?.name).toBe(`${fullId}-merged.zip`);
    const adapter = await target.file('GET', `/runs/${fullId}/exports/archive/adapter`);
    expect([adapter.status, fileError(adapter)]).toEqual([404, fullExports.archives[0]?.reason]);
  });

  it('GGUF asked after the run: 202 "writing", then written without training again; refused while running and for a bad type', async () => {
    const long = await target.call('POST', '/train', target.body('long'));
    const { run_id: runningId } = TrainResponseSchema.parse(long.json);
    const early = await target.call('POST', `/runs/${runningId}/exports`, { gguf: 'Q8_0' });
    expect([early.status, errorOf(early)]).toEqual([
      409,
      `Run ${runningId} is still running; ask for its exports once it has ended`,
    ]);
    await target.call('POST', `/runs/${runningId}/cancel`, {});

    const started = await target.call('POST', '/train', target.body('quick'));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    const run = await target.finish(id);
    const before = RunExportsSchema.parse((await target.call('GET', `/runs/${id}/exports`)).json);
    expect(before.gguf.state).toBe('none');
    for (const bad of [{ gguf: 'Q4_K_M' }, { gguf: 'none' }, {}, { gguf: 'Q8_0', extra: 1 }]) {
      const answer = await target.call('POST', `/runs/${id}/exports`, bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
    }
    const asked = await target.call('POST', `/runs/${id}/exports`, { gguf: 'both' });
    expect(asked.status).toBe(202);
    const writing = RunExportsSchema.parse(asked.json).gguf;
    expect(writing.state).toBe('writing');
    expect(writing.reason).toMatch(new RegExp(`^Run ${id}'s GGUF F16 and Q8_0 is being written`));
    let gguf = writing;
    for (let i = 0; i < 100 && gguf.state === 'writing'; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      gguf = RunExportsSchema.parse((await target.call('GET', `/runs/${id}/exports`)).json).gguf;
    }
    const name = run.output_dir.split('/').filter(Boolean).pop() ?? '';
    expect(gguf.state).toBe('written');
    expect(gguf.files.map((file) => [file.name, file.passed])).toEqual([
      [`${name}-F16.gguf`, true],
      [`${name}-Q8_0.gguf`, true],
    ]);
    const q8 = await target.file('GET', `/runs/${id}/exports/gguf/${name}-Q8_0.gguf`);
    expect([q8.status, q8.body.subarray(0, 4).toString()]).toEqual([200, 'GGUF']);
  });

  it('unknown and malformed run ids, bad log queries', async () => {
    for (const path of ['/runs/nope', '/runs/nope/metrics', '/logs/nope?tail=10']) {
      const answer = await target.call('GET', path);
      expect([answer.status, errorOf(answer)], path).toEqual([404, 'No run with id "nope"']);
    }
    const bad = await target.call('GET', '/runs/bad%20id');
    expect([bad.status, errorOf(bad)]).toEqual([400, 'Invalid path: id is not a valid run id']);
    const started = await target.call('POST', '/train', target.body('quick'));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    await target.finish(id);
    const zero = await target.call('GET', `/logs/${id}?tail=0`);
    expect([zero.status, errorOf(zero)]).toEqual([400, 'Invalid query: tail must be at least 1']);
    const both = await target.call('GET', `/logs/${id}?tail=5&offset=0`);
    expect([both.status, errorOf(both)]).toEqual([
      400,
      'Use either tail=N or offset=K&limit=L, not both',
    ]);
  });

  it('GET /logs/{id}: the tail, or pages from an offset (100 lines unless a limit is named)', async () => {
    const started = await target.call('POST', '/train', target.body('quick', { max_steps: 60 }));
    const { run_id: id } = TrainResponseSchema.parse(started.json);
    await target.finish(id);
    const logs = async (query: string) => {
      const answer = await target.call('GET', `/logs/${id}${query}`);
      expect(answer.status, `${query}: ${errorOf(answer)}`).toBe(200);
      return LogsResponseSchema.parse(answer.json);
    };
    const all = await logs(`?tail=${MAX_LOG_LINES}`);
    const total = all.lines.length;
    // Longer than one default page, so the default limit shows.
    expect(total).toBeGreaterThan(LOG_PAGE_LINES);
    expect(all).toEqual({ lines: all.lines, total, next_offset: total });
    const last = { lines: all.lines.slice(-LOG_TAIL), total, next_offset: total };
    expect(await logs('')).toEqual(last);
    expect(await logs('?tail=3')).toEqual({
      lines: all.lines.slice(-3),
      total,
      next_offset: total,
    });
    // A limit without an offset is the default tail.
    expect(await logs('?limit=3')).toEqual(last);
    expect(await logs('?offset=0')).toEqual({
      lines: all.lines.slice(0, LOG_PAGE_LINES),
      total,
      next_offset: LOG_PAGE_LINES,
    });
    expect(await logs('?offset=5&limit=3')).toEqual({
      lines: all.lines.slice(5, 8),
      total,
      next_offset: 8,
    });
    expect(await logs(`?offset=${total - 2}&limit=10`)).toEqual({
      lines: all.lines.slice(-2),
      total,
      next_offset: total,
    });
    expect(await logs(`?offset=${total + 5}`)).toEqual({
      lines: [],
      total,
      next_offset: total + 5,
    });
    const both = await target.call('GET', `/logs/${id}?tail=5&limit=3`);
    expect([both.status, errorOf(both)]).toEqual([
      400,
      'Use either tail=N or offset=K&limit=L, not both',
    ]);
  });

  it('POST /train/plan: a trainer that does not finish planning in time is a 504 saying so', async () => {
    const slow = target.slowPlan();
    try {
      const answer = await target.call('POST', '/train/plan', slow.body);
      expect([answer.status, errorOf(answer)]).toEqual([504, planTimedOut(slow.timeoutMs).message]);
    } finally {
      slow.restore();
    }
  });

  it('PUT /datasets/{name}: stored, or 400 for a bad name or an empty dataset', async () => {
    const stored = await target.call('PUT', '/datasets/harbour', ENTRIES.slice(0, 2));
    expect(stored.status).toBe(200);
    const answer = DatasetResponseSchema.parse(stored.json);
    expect(answer.entries).toBe(2);
    expect(answer.path).toMatch(/datasets\/harbour\.json$/);
    const name = await target.call('PUT', '/datasets/-bad', ENTRIES);
    expect(name.status).toBe(400);
    expect(errorOf(name)).toMatch(/^Invalid path: name must be 1–100 letters/);
    const empty = await target.call('PUT', '/datasets/empty', []);
    expect([empty.status, errorOf(empty)]).toEqual([
      400,
      'Invalid body: body must hold at least one entry',
    ]);
  });

  it('GET /models, GET /trainer, the set-up takes no options', async () => {
    ModelListSchema.parse((await target.call('GET', '/models')).json);
    const info = await target.call('GET', '/trainer');
    expect(info.status).toBe(200);
    TrainerInfoSchema.parse(info.json);
    TrainerSetupSchema.parse((await target.call('GET', '/trainer/setup')).json);
    const options = await target.call('POST', '/trainer/setup', { packages: ['evil'] });
    expect([options.status, errorOf(options)]).toEqual([
      400,
      'Invalid body: body has unknown field: packages',
    ]);
  });

  it('the Hub cache: listed, 404 for a model it lacks, 400 for a bad id; a bad hub_token is a 400', async () => {
    const cache = await target.call('GET', '/hub-cache');
    expect(cache.status).toBe(200);
    expect(HubCacheSchema.parse(cache.json)).toMatchObject({ bytes: 0, models: [] });
    const dir = HubCacheSchema.parse(cache.json).dir;
    const missing = await target.call('DELETE', '/hub-cache/models/org/none', {});
    expect([missing.status, errorOf(missing)]).toEqual([
      404,
      trainingMessages.notInHubCache(dir, 'org/none'),
    ]);
    const bad = await target.call('DELETE', '/hub-cache/models/org/a--b', {});
    expect([bad.status, errorOf(bad)]).toEqual([
      400,
      'Invalid path: name is not a Hub name (letters, digits, ".", "_" and "-"; no "--" or "..")',
    ]);
    const token = await target.call('POST', '/train', target.body('quick', { hub_token: 'x' }));
    expect(token.status).toBe(400);
    expect(errorOf(token)).toMatch(/^Invalid body: hub_token must be a Hub access token: hf_/);
  });
});
