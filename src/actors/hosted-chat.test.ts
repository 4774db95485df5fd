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
import { HOSTED_CHAT_URL, hostedChatCompletion, runHostedChat } from './hosted-chat';

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

/** A hand-made chat-completion stream: `events` as SSE `data:` lines, then closed or stalled. */
function sseResponse(events: unknown[], opts: { stall?: boolean } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events)
        controller.enqueue(
          encoder.encode(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`),
        );
      // A stalled stream never ends and ignores any abort signal (as a buffered body may).
      if (!opts.stall) controller.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}
const delta = (content: string, finish: string | null = null) => ({
  choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }],
});
const ANSWER = '{"entries":[{"prompt":"Q?","completion":"A."}]}';
const answerEvents = [
  delta(ANSWER.slice(0, 20)),
  delta(ANSWER.slice(20)),
  delta('', 'stop'),
  '[DONE]',
];

async function failure(
  scenario: DatasetScenario | null,
  opts: Parameters<typeof runHostedChat>[2] = fast,
): Promise<DatasetFailure> {
  if (scenario) serve(scenario);
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
    const e = await failure('503', { ...fast, maxAttempts: 3 });
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

describe('the library path (@huggingface/inference chatCompletionStream, injected fetch)', () => {
  it('calls the injected fetch: POST to the router with the bearer token and our body', async () => {
    const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls.push({ url: input as string, init });
      return Promise.resolve(sseResponse(answerEvents));
    };
    const texts: string[] = [];
    const text = await hostedChatCompletion(
      { token: TOKEN, prompt, pairs: 4, onText: (t) => texts.push(t) },
      { fetch },
    );
    expect(text).toBe(ANSWER);
    expect(texts).toEqual(['', ANSWER.slice(0, 20), ANSWER]);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.url).toBe(HOSTED_CHAT_URL);
    expect(call?.init?.method).toBe('POST');
    expect(new Headers(call?.init?.headers).get('Authorization')).toBe(`Bearer ${TOKEN}`);
    const body = JSON.parse(call?.init?.body as string) as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'openai/gpt-oss-20b',
      stream: true,
      max_tokens: 2048 + 4 * 250,
      response_format: { type: 'json_schema', json_schema: { name: 'dataset', strict: true } },
    });
  });

  it('`url` is the endpoint the library posts to', async () => {
    const urls: string[] = [];
    const fetch: typeof globalThis.fetch = (input) => {
      urls.push(input as string);
      return Promise.resolve(sseResponse(answerEvents));
    };
    const url = 'http://127.0.0.1:9/v1/chat/completions';
    await hostedChatCompletion({ token: TOKEN, prompt }, { fetch, url });
    expect(urls).toEqual([url]);
  });

  it.each([
    [500, 'server', 'The inference provider failed (HTTP 500: Internal server error); gave up'],
    [413, 'too-long', "too long for the model's context (HTTP 413)"],
    [400, 'bad-request', 'The request was rejected (HTTP 400: messages must not be empty).'],
  ] as const)('HTTP %i (JSON error body) → %s', async (status, kind, message) => {
    const error = {
      500: 'Internal server error',
      413: 'Payload too large',
      400: 'messages must not be empty',
    }[status];
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(Response.json({ error }, { status }));
    const e = await failure(null, { ...fast, fetch, maxAttempts: 1 });
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message).toContain(message);
  });

  it('an OpenAI-style error object ({error: {message}}) is the detail', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(
        Response.json({ error: { message: 'Unknown parameter: foo', type: 'x' } }, { status: 400 }),
      );
    const e = await failure(null, { ...fast, fetch });
    expect(e.message).toBe('The request was rejected (HTTP 400: Unknown parameter: foo).');
  });

  it('a 502 text page (a body the library does not read) still gives its words', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(
        new Response('upstream connect error', {
          status: 502,
          statusText: 'Bad Gateway',
          headers: { 'Content-Type': 'text/plain' },
        }),
      );
    const e = await failure(null, { ...fast, fetch, maxAttempts: 1 });
    expect(e.kind).toBe('server');
    expect(e.message).toBe(
      'The inference provider failed (HTTP 502: upstream connect error); gave up after 1 attempts.',
    );
  });

  it("the library's own 503 retry is off: attempts are ours and bounded", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(() =>
      Promise.resolve(Response.json({ error: 'Service Unavailable' }, { status: 503 })),
    );
    const e = await failure(null, { ...fast, fetch, maxAttempts: 2 });
    expect(e.kind).toBe('server');
    expect(fetch).toHaveBeenCalledTimes(2);
  }, 5000); // the library alone would retry a 503 without end

  it('a 503 with Retry-After waits that long, then succeeds', async () => {
    const times: number[] = [];
    const fetch: typeof globalThis.fetch = () => {
      times.push(performance.now());
      return Promise.resolve(
        times.length === 1
          ? Response.json(
              { error: 'Model is loading' },
              { status: 503, headers: { 'Retry-After': '0.3' } },
            )
          : sseResponse(answerEvents),
      );
    };
    const text = await runHostedChat(
      new QueryClient(),
      { token: TOKEN, prompt },
      { ...fast, fetch },
    );
    expect(text).toBe(ANSWER);
    expect(times).toHaveLength(2);
    // backoffMs is 1 ms: only the server's Retry-After explains the wait.
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(280);
  });

  it('429 carries the Retry-After in ms', async () => {
    const e = await failure('429');
    expect(e.retryAfterMs).toBe(120_000);
    expect(e.toDatasetError()).toMatchObject({ kind: 'rate-limited', retryable: true });
  });

  it('a stream that stalls between chunks times out and keeps what came', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(sseResponse([delta('{"entries": [')], { stall: true }));
    const e = await hostedChatCompletion({ token: TOKEN, prompt }, { fetch, timeoutMs: 100 }).catch(
      (error: unknown) => error,
    );
    expect(e).toMatchObject({ kind: 'timeout', partial: '{"entries": [' });
  }, 5000); // a stalled body that did not follow the abort would hang here

  it('abort while a stalled body ignores the signal: cancelled at once', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(sseResponse([delta('{"entries"')], { stall: true }));
    const controller = new AbortController();
    const pending = hostedChatCompletion(
      { token: TOKEN, prompt, signal: controller.signal, onText: (t) => t && controller.abort() },
      { fetch, timeoutMs: 10_000 },
    );
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
  }, 5000);

  it('a stream line that is not JSON is a server failure', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(sseResponse([delta('{"en'), '<html>oops']));
    const e = await failure(null, { ...fast, fetch, maxAttempts: 1 });
    expect(e.kind).toBe('server');
    expect(e.message).toContain('the stream sent a line that is not JSON');
  });

  it('an error event that echoes the token: redacted, partial text kept', async () => {
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(
        sseResponse([delta('{"entries"'), { error: { message: `bad key ${TOKEN}` } }]),
      );
    const e = await failure(null, { ...fast, fetch, maxAttempts: 1 });
    expect(e.message).toBe('The inference provider reported an error: bad key [redacted].');
    expect(e.partial).toBe('{"entries"');
  });

  it('an input error of the library is a bad request naming it', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const e = await failure(null, { ...fast, fetch, model: 'https://example.org/model' });
    expect(e.kind).toBe('bad-request');
    expect(e.message).toContain(
      'The request could not be made: Model URLs are no longer supported',
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it('nothing is logged with the token, on success or failure', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      vi.spyOn(console, m),
    );
    try {
      serve('success');
      await hostedChatCompletion({ token: TOKEN, prompt });
      await failure('401');
      for (const spy of spies)
        for (const args of spy.mock.calls)
          expect(JSON.stringify(args)).not.toContain('secretTOKEN');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
