/** PUT /datasets/{name}: the dataset made by 'Format Input', stored where a run can use it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetResponse, TrainResponse } from '../../src/shared/training-api';
import { FIXTURES, startTestService, type TestService } from './helpers';

let svc: TestService;
beforeAll(async () => {
  // The default data root is the data folder itself, where datasets are stored.
  svc = await startTestService();
  svc.config.dataRoots.push(svc.config.dataDir);
});
afterAll(() => svc.close());

const error = (json: unknown) => (json as { error: string }).error;
const put = (name: string, body: string, type = 'application/json') =>
  svc.request({
    method: 'PUT',
    path: `/datasets/${name}`,
    headers: { 'content-type': type },
    body,
  });

const entries = [
  { prompt: 'What is in the text?', completion: 'A story. It is short.' },
  { prompt: 'Who wrote it?', completion: 'Nobody knows.' },
];

describe('PUT /datasets/{name}', () => {
  it('stores the dataset and returns a path that POST /train accepts', async () => {
    const reply = await put('input_data', JSON.stringify(entries));
    expect(reply.status, reply.text).toBe(200);
    const { path, entries: count } = reply.json as DatasetResponse;
    expect(path).toBe(join(svc.config.dataDir, 'datasets', 'input_data.json'));
    expect(count).toBe(2);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(entries);
    const train = await svc.train({ script_path: join(FIXTURES, 'args.mjs'), data_file: path });
    expect(train.status, train.text).toBe(200);
    await svc.waitForEnd((train.json as TrainResponse).run_id);
  });

  it('a chat-format dataset ({messages}, multi-turn) is stored as it came, and the run reads it back as its last exchanges', async () => {
    const chat = [
      {
        messages: [
          { role: 'system', content: 'Short answers.' },
          { role: 'user', content: 'What is in the text?' },
          { role: 'assistant', content: 'A story.' },
          { role: 'user', content: 'Is it long?' },
          { role: 'assistant', content: 'No, it is short.' },
        ],
      },
      entries[1],
    ];
    const reply = await put('chat', JSON.stringify(chat));
    expect(reply.status, reply.text).toBe(200);
    const { path, entries: count } = reply.json as DatasetResponse;
    expect(count).toBe(2);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(chat);
    const train = await svc.train({ script_path: join(FIXTURES, 'args.mjs'), data_file: path });
    expect(train.status, train.text).toBe(200);
    const runId = (train.json as TrainResponse).run_id;
    await svc.waitForEnd(runId);
    const back = await svc.request({ method: 'GET', path: `/runs/${runId}/dataset` });
    expect(back.status, back.text).toBe(200);
    expect(back.json).toEqual({
      entries: [{ prompt: 'Is it long?', completion: 'No, it is short.' }, entries[1]],
    });
  });

  it.each([
    ['..%2Fescape', 'Invalid path: name must be 1–100 letters'],
    ['.hidden', 'Invalid path: name must be 1–100 letters'],
    ['a..json', 'Invalid path: name must not contain ".."'],
  ])('refuses the name %s', async (name, message) => {
    const reply = await put(name, JSON.stringify(entries));
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toContain(message);
  });

  it.each([
    ['an object', '{"prompt":"x"}', 'Invalid body: body must be a JSON array'],
    ['an empty array', '[]', 'Invalid body: body must hold at least one entry'],
    ['an entry without completion', '[{"prompt":"x"}]', 'Invalid body: 0.completion is required'],
    [
      'a conversation without an assistant turn',
      '[{"messages":[{"role":"user","content":"Hi?"}]}]',
      'Invalid body: 0.messages has no assistant turn (nothing to learn)',
    ],
    [
      'a turn with an unknown role',
      '[{"messages":[{"role":"bot","content":"Hi"},{"role":"assistant","content":"Hello"}]}]',
      'Invalid body: 0.messages.0.role must be "system", "user" or "assistant"',
    ],
    ['malformed JSON', '[{"prompt":', 'Malformed JSON body'],
  ])('refuses %s', async (_name, body, message) => {
    const reply = await put('bad', body);
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toContain(message);
  });

  it('refuses text/plain (415) and a body over the limit (413)', async () => {
    expect((await put('x', JSON.stringify(entries), 'text/plain')).status).toBe(415);
    const huge = JSON.stringify([{ prompt: 'x'.repeat(svc.config.datasetLimit), completion: '' }]);
    const reply = await put('huge', huge);
    expect(reply.status).toBe(413);
  });
});
