import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { QueryClient } from '@tanstack/react-query';
import {
  CHAT_COMPLETIONS_URL,
  datasetScenarioHandler,
  type DatasetScenario,
} from '../../mocks/dataset-handlers';
import { DatasetFailure } from '../shared/dataset/errors';
import { buildDatasetPrompt } from '../shared/dataset/prompt';
import { parseDatasetOutput } from '../shared/dataset/parse';
import { hostedChatCompletion, runHostedChat } from './hosted-chat';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const TOKEN = 'hf_secretTOKEN1234567890';
const prompt = buildDatasetPrompt({ name: 'Port Elsby', text: 'It rains. It shines.', count: 2 });
const fast = { backoffMs: 1, timeoutMs: 2000 };

function serve(scenario: DatasetScenario) {
  const handler = datasetScenarioHandler(scenario);
  server.use(handler);
  return handler;
}

async function failure(scenario: DatasetScenario, opts = fast): Promise<DatasetFailure> {
  serve(scenario);
  const client = new QueryClient();
  const error: unknown = await runHostedChat(client, { token: TOKEN, prompt }, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasetFailure);
  const failure = error as DatasetFailure;
  // The token never appears in a message, whatever the server sent back.
  expect(failure.message).not.toContain(TOKEN);
  expect(JSON.stringify(failure.toDatasetError())).not.toContain('secretTOKEN');
  return failure;
}

describe('hostedChatCompletion: success', () => {
  it('streams: sends model, one user message, schema, bearer token; reports text so far', async () => {
    const seen: { body?: unknown; auth?: string | null } = {};
    server.events.on('request:start', ({ request }) => {
      seen.auth = request.headers.get('Authorization');
      void request
        .clone()
        .json()
        .then((b: unknown) => (seen.body = b));
    });
    serve('success');
    const texts: string[] = [];
    const text = await hostedChatCompletion({ token: TOKEN, prompt, onText: (t) => texts.push(t) });
    server.events.removeAllListeners();
    expect(seen.auth).toBe(`Bearer ${TOKEN}`);
    expect(seen.body).toMatchObject({
      model: 'openai/gpt-oss-20b',
      messages: [{ role: 'user', content: prompt }],
      stream: true,
      response_format: { type: 'json_schema' },
    });
    const parsed = parseDatasetOutput(text);
    expect(parsed.ok && parsed.items).toHaveLength(2);
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.at(-1)).toBe(text);
    // Each report is the whole text so far.
    expect(texts.every((t, i) => i === 0 || t.startsWith(texts[i - 1] ?? ''))).toBe(true);
  });

  it('reads a non-streamed JSON answer (choices[0].message.content)', async () => {
    serve('json');
    const text = await hostedChatCompletion({ token: TOKEN, prompt });
    expect(parseDatasetOutput(text).ok).toBe(true);
  });

  it('fenced JSON comes back as written (fences are stripped by the parser)', async () => {
    serve('fenced');
    const text = await hostedChatCompletion({ token: TOKEN, prompt });
    expect(text.startsWith('```json')).toBe(true);
    expect(parseDatasetOutput(text).ok).toBe(true);
  });

  it('asks again without response_format when the provider refuses the schema', async () => {
    const bodies: unknown[] = [];
    server.events.on('request:start', ({ request }) => {
      void request
        .clone()
        .json()
        .then((b: unknown) => bodies.push(b));
    });
    serve('no-schema');
    const text = await hostedChatCompletion({ token: TOKEN, prompt });
    server.events.removeAllListeners();
    expect(parseDatasetOutput(text).ok).toBe(true);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).not.toHaveProperty('response_format');
  });
});

describe('runHostedChat: each failure has its own message', () => {
  it.each([
    ['401', 'auth', 'The access token was refused (HTTP 401).'],
    ['403', 'auth', 'The access token was refused (HTTP 403).'],
    ['402', 'credits', 'no inference credits left (HTTP 402)'],
    ['404', 'model-not-served', 'openai/gpt-oss-20b is not served by any inference provider'],
    ['429', 'rate-limited', 'Rate limited by Hugging Face (HTTP 429). Try again in 120 s.'],
    ['too-long', 'too-long', "too long for the model's context (HTTP 400)"],
    ['stream-early', 'stream-ended', 'The response stream ended before the model finished'],
    ['stream-error', 'server', 'reported an error: Provider overloaded'],
    ['length', 'too-long', "cut off at the model's length limit"],
  ] as const)('%s → %s', async (scenario, kind, message) => {
    const e = await failure(scenario);
    expect(e.kind).toBe(kind);
    expect(e.message).toContain(message);
  });

  it('401: the token echoed by the server is redacted', async () => {
    const e = await failure('401');
    expect(e.message).not.toContain('Bearer');
  });

  it('a stream that ends early keeps the partial text', async () => {
    const e = await failure('stream-early');
    expect(e.partial?.length).toBeGreaterThan(10);
  });

  it('5xx is retried a bounded number of times, then fails', async () => {
    const handler = vi.fn();
    server.events.on('request:start', handler);
    const e = await failure('503', { ...fast, maxAttempts: 3 } as typeof fast);
    server.events.removeAllListeners();
    expect(e.kind).toBe('server');
    expect(e.message).toBe(
      'The inference provider failed (HTTP 503: Service Unavailable); gave up after 3 attempts.',
    );
    expect(handler).toHaveBeenCalledTimes(3);
  });

  it('429 with a short Retry-After is retried and succeeds', async () => {
    serve('429-then-ok');
    const text = await runHostedChat(new QueryClient(), { token: TOKEN, prompt }, fast);
    expect(parseDatasetOutput(text).ok).toBe(true);
  });

  it('429 with a Retry-After longer than the limit fails at once', async () => {
    const handler = vi.fn();
    server.events.on('request:start', handler);
    await failure('429');
    server.events.removeAllListeners();
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('network down', async () => {
    const e = await failure('network');
    expect(e.kind).toBe('network');
    expect(e.message).toContain('Could not reach router.huggingface.co');
  });

  it('a server that never answers times out (bounded)', async () => {
    server.use(http.post(CHAT_COMPLETIONS_URL, () => new Promise<Response>(() => {})));
    const error = await hostedChatCompletion({ token: TOKEN, prompt }, { timeoutMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      kind: 'timeout',
      message: 'No answer from the inference provider within 1 s.',
    });
  });

  it('an answer without a completion', async () => {
    server.use(http.post(CHAT_COMPLETIONS_URL, () => HttpResponse.json({ nope: 1 })));
    await expect(hostedChatCompletion({ token: TOKEN, prompt })).rejects.toMatchObject({
      kind: 'bad-request',
    });
  });
});

describe('cancel', () => {
  it('aborting the signal stops the stream with a cancelled failure', async () => {
    serve('slow');
    const controller = new AbortController();
    const texts: string[] = [];
    const pending = hostedChatCompletion({
      token: TOKEN,
      prompt,
      signal: controller.signal,
      onText: (t) => {
        texts.push(t);
        if (t.length > 0) controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    expect(texts.length).toBeLessThan(5);
  });

  it('an already aborted signal sends nothing', async () => {
    const handler = vi.fn();
    server.events.on('request:start', handler);
    const controller = new AbortController();
    controller.abort();
    await expect(
      hostedChatCompletion({ token: TOKEN, prompt, signal: controller.signal }),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    server.events.removeAllListeners();
    expect(handler).not.toHaveBeenCalled();
  });
});
