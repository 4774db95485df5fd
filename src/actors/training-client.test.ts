import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createActor, toPromise } from 'xstate';
import { createTrainingActors, createTrainingClient, resolveTrainingUrl } from './training-client';
import { createTrainingMock } from '../../mocks/training-handlers';
import { TRAINING_PARAMS } from '../shared/training-api';
import { ApiError } from '../shared/api-error';

const BASE = 'http://127.0.0.1:8000';
const mock = createTrainingMock({ baseUrl: BASE, stepsPerPoll: 60 });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  mock.reset();
});
afterAll(() => server.close());

const request = {
  script_path: 'training/finetune.py',
  output_dir: 'service-data/outputs/lora',
  data_file: 'service-data/datasets/input_data.json',
  base_model: 'meta-llama/Llama-3.2-3B-Instruct',
  ...TRAINING_PARAMS,
};

describe('resolveTrainingUrl', () => {
  it('takes ?trainingUrl= only when it is a loopback URL', () => {
    expect(resolveTrainingUrl('?trainingUrl=http://127.0.0.1:9123/', undefined)).toBe(
      'http://127.0.0.1:9123',
    );
    expect(resolveTrainingUrl('?trainingUrl=https://evil.example', undefined)).toBe(BASE);
    expect(resolveTrainingUrl('', 'http://localhost:8001')).toBe('http://localhost:8001');
    expect(resolveTrainingUrl('', undefined)).toBe(BASE);
  });
});

describe('createTrainingClient', () => {
  const client = createTrainingClient({ baseUrl: BASE });

  it('starts, polls and cancels through the schema-validated calls', async () => {
    const { run_id } = await client.startTraining(request);
    expect(run_id).toBe('mock-run-1');
    expect((await client.fetchLogs(run_id)).lines.at(-1)).toMatch(/^step 60\/120/);
    expect(await client.fetchRun(run_id)).toMatchObject({ state: 'running', current: 60 });
    expect(await client.cancelRun(run_id)).toMatchObject({ state: 'cancelled' });
    expect(mock.requests).toEqual([
      'POST /train',
      'GET /logs/mock-run-1?tail=10',
      'GET /runs/mock-run-1',
      'POST /runs/mock-run-1/cancel',
    ]);
  });

  it("a non-OK answer becomes an error carrying the server's text and status", async () => {
    mock.setScenario('fail-start');
    const error = await client.startTraining(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'server', status: 500 });
    expect((error as Error).message).toMatch(/^Could not start python3/);
    server.use(
      http.get(`${BASE}/runs/:id`, () => new HttpResponse('plain failure', { status: 502 })),
    );
    await expect(client.fetchRun('x')).rejects.toThrow('plain failure');
  });

  it('an answer that does not match the schema is refused', async () => {
    server.use(http.get(`${BASE}/logs/:id`, () => HttpResponse.json({ lines: 'nope' })));
    await expect(client.fetchLogs('x')).rejects.toMatchObject({ kind: 'invalid-response' });
  });

  it('stores a dataset with PUT /datasets/{name}', async () => {
    const answer = await client.putDataset('input_data', [{ prompt: 'q', completion: 'a' }]);
    expect(answer).toEqual({ path: 'service-data/datasets/input_data.json', entries: 1 });
  });
});

describe('createTrainingActors', () => {
  it('pollRun asks the service afresh each time: logs, run and metrics, one request each', async () => {
    const client = createTrainingClient({ baseUrl: BASE });
    const actors = createTrainingActors(client);
    const started = await toPromise(
      createActor(actors.startTraining, { input: { request } }).start(),
    );
    const polled = await toPromise(
      createActor(actors.pollRun, {
        input: { runId: started.runId, tail: 10, after: -1, evalAfter: -1 },
      }).start(),
    );
    expect(polled.run.id).toBe(started.runId);
    // The first poll advanced the mock run: its loss points come with the same poll's answer.
    const polledAgain = await toPromise(
      createActor(actors.pollRun, {
        input: {
          runId: started.runId,
          tail: 10,
          after: polled.metrics.next,
          evalAfter: polled.metrics.eval?.at(-1)?.seq ?? -1,
        },
      }).start(),
    );
    expect(polledAgain.metrics.points.length).toBeGreaterThan(0);
    expect(polledAgain.metrics.points.every((p) => p.seq > polled.metrics.next)).toBe(true);
    expect(polledAgain.lines).not.toEqual(polled.lines);
    const runId = encodeURIComponent(started.runId);
    expect(mock.requests.filter((r) => r === 'POST /train')).toHaveLength(1);
    expect(mock.requests.filter((r) => r.startsWith(`GET /runs/${runId}/metrics`))).toHaveLength(2);
    expect(mock.requests.filter((r) => r.startsWith(`GET /logs/${runId}`))).toHaveLength(2);
  });

  it('fetchCatalog answers GET /runs (with the active run to attach to) and GET /models', async () => {
    const client = createTrainingClient({ baseUrl: BASE });
    const actors = createTrainingActors(client);
    const started = await toPromise(
      createActor(actors.startTraining, { input: { request } }).start(),
    );
    const catalog = await toPromise(createActor(actors.fetchCatalog).start());
    expect(catalog.runs.active).toBe(started.runId);
    expect(catalog.runs.runs[0]?.id).toBe(started.runId);
    expect(catalog.models).toEqual([]);
    expect(mock.requests).toContain('GET /models');
  });
});
