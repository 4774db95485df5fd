/**
 * MSW handlers for the hosted chat completion ('Format Input'), shared by unit tests, component
 * tests and the app's mock mode. `datasetScenarioHandler(s)` answers every request with one
 * scenario; `datasetHandlers` (mock mode) picks the scenario from the token: `mock-<scenario>`
 * (e.g. `mock-429`), any other non-empty token gets `success`.
 */
import { delay, http, HttpResponse } from 'msw';
import { isObject } from '../src/shared/guards';

export const CHAT_COMPLETIONS_URL = 'https://router.huggingface.co/v1/chat/completions';

export const DATASET_SCENARIOS = [
  'success', // streamed JSON, valid pairs built from the text
  'json', // not streamed: one JSON body
  'fenced', // streamed, wrapped in ```json fences
  'slow', // streamed slowly (cancel, progress)
  'invalid-entries', // some pairs invalid or duplicated
  'no-schema', // 400 for response_format, success without it
  '401',
  '403',
  '402',
  '404',
  '429', // Retry-After: 120 (longer than the client waits)
  '429-then-ok', // Retry-After: 0, then success
  '500',
  '503',
  'network',
  'stream-early', // stream closes without finishing
  'stream-error', // an error event inside the stream
  'length', // finish_reason: length
  'not-json',
  'wrong-shape',
  'empty',
  'too-long', // 400 maximum context length
] as const;
export type DatasetScenario = (typeof DATASET_SCENARIOS)[number];

interface ChatBody {
  /** The first message's text ('' when there is none). */
  prompt: string;
  responseFormat: unknown;
}

/** What the mock reads of a chat request's JSON body. */
function readChatBody(value: unknown): ChatBody {
  const body = isObject(value) ? value : {};
  const first: unknown = Array.isArray(body.messages) ? body.messages[0] : undefined;
  return {
    prompt: isObject(first) && typeof first.content === 'string' ? first.content : '',
    responseFormat: body.response_format,
  };
}

/** Pairs made from the prompt's own text: one per sentence, asking about it by the text's name. */
export function mockPairs(prompt: string): Array<{ prompt: string; completion: string }> {
  const title = /titled "([^"]*)"/.exec(prompt)?.[1] ?? 'the text';
  const count = Number(/Write exactly (\d+)/.exec(prompt)?.[1] ?? 3);
  const text = /"""\n([\s\S]*?)\n"""/.exec(prompt)?.[1] ?? '';
  const sentences = text.match(/[^.!?]+[.!?]/g)?.map((s) => s.trim()) ?? ['It is a text.'];
  return Array.from({ length: count }, (_, i) => {
    const sentence = sentences[i % sentences.length] ?? '';
    const topic = sentence
      .split(/\s+/)
      .slice(0, 4)
      .join(' ')
      .replace(/[,.;:!?]+$/, '');
    return {
      prompt: `In ${title}, what is said about "${topic}" (detail ${i + 1})?`,
      completion: `${sentence} This detail comes from ${title}.`,
    };
  });
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const delta = (content: string, finish: string | null = null) =>
  sse({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/** A streamed answer: `content` in `pieces` deltas, a reasoning delta first (as gpt-oss sends). */
function streamed(
  content: string,
  opts: { pieces?: number; pauseMs?: number; finish?: string | null; done?: boolean } = {},
) {
  const { pieces = 6, pauseMs = 15, finish = 'stop', done = true } = opts;
  const size = Math.max(1, Math.ceil(content.length / pieces));
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(
        encoder.encode(sse({ choices: [{ index: 0, delta: { reasoning: 'Reading the text.' } }] })),
      );
      for (let i = 0; i < content.length; i += size) {
        await delay(pauseMs);
        controller.enqueue(encoder.encode(delta(content.slice(i, i + size))));
      }
      if (finish) controller.enqueue(encoder.encode(delta('', finish)));
      if (done) controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    },
  });
  return new HttpResponse(stream, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
  });
}

const errorBody = (status: number, message: string, headers: Record<string, string> = {}) =>
  HttpResponse.json({ error: message }, { status, headers });

/** The response for one scenario. */
async function respond(scenario: DatasetScenario, request: Request, state: { calls: number }) {
  state.calls += 1;
  const body = readChatBody(await request.json());
  const prompt = body.prompt;
  const pairs = mockPairs(prompt);
  const json = JSON.stringify({ entries: pairs });
  const auth = request.headers.get('Authorization') ?? '';
  switch (scenario) {
    case 'success':
      return streamed(json);
    case 'json':
      return HttpResponse.json({
        choices: [
          { index: 0, message: { role: 'assistant', content: json }, finish_reason: 'stop' },
        ],
      });
    case 'fenced':
      return streamed('```json\n' + JSON.stringify(pairs, null, 2) + '\n```');
    case 'slow':
      return streamed(json, { pieces: 40, pauseMs: 150 });
    case 'invalid-entries': {
      const first = pairs[0] ?? { prompt: 'Q?', completion: 'A.' };
      return streamed(
        JSON.stringify({
          entries: [
            ...pairs,
            first,
            { prompt: '', completion: 'An answer without a question.' },
            { prompt: 'A question with no answer?' },
            'just a string',
            { prompt: 'Too long?', completion: 'One. Two. Three. Four. Five. Six.' },
          ],
        }),
      );
    }
    case 'no-schema':
      return body.responseFormat
        ? errorBody(400, 'response_format json_schema is not supported by this provider')
        : streamed(json);
    case '401':
    case '403':
      // Echoes the header like a careless server would: the client must redact it.
      return errorBody(Number(scenario), `Invalid credentials in Authorization header: ${auth}`);
    case '402':
      return errorBody(
        402,
        'You have exceeded your monthly included credits for Inference Providers.',
      );
    case '404':
      return errorBody(
        404,
        'Model openai/gpt-oss-20b is not supported by any provider you have enabled.',
      );
    case '429':
      return errorBody(429, 'Rate limit reached.', { 'Retry-After': '120' });
    case '429-then-ok':
      return state.calls === 1
        ? errorBody(429, 'Rate limit reached.', { 'Retry-After': '0' })
        : streamed(json);
    case '500':
      return errorBody(500, 'Internal server error');
    case '503':
      return errorBody(503, 'Service Unavailable', { 'Retry-After': '0' });
    case 'network':
      return HttpResponse.error();
    case 'stream-early':
      return streamed(json.slice(0, Math.floor(json.length / 2)), { finish: null, done: false });
    case 'stream-error': {
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(delta('{"entries": [')));
          controller.enqueue(encoder.encode(sse({ error: { message: 'Provider overloaded' } })));
          controller.close();
        },
      });
      return new HttpResponse(stream, { headers: { 'Content-Type': 'text/event-stream' } });
    }
    case 'length':
      return streamed(json.slice(0, 40), { finish: 'length' });
    case 'not-json':
      return streamed('Sure! Here are some questions about the text: what is it about?');
    case 'wrong-shape':
      return streamed(JSON.stringify({ questions: 'none', answers: 3 }));
    case 'empty':
      return streamed('');
    case 'too-long':
      return errorBody(
        400,
        "This model's maximum context length is 131072 tokens. However, you requested 250000 tokens.",
      );
  }
}

/** A handler answering every chat-completion request with `scenario` (a fresh call counter). */
export function datasetScenarioHandler(scenario: DatasetScenario) {
  const state = { calls: 0 };
  return http.post(CHAT_COMPLETIONS_URL, ({ request }) => respond(scenario, request, state));
}

/** Mock mode: the scenario comes from the token (`mock-<scenario>`), else `success`. */
export const datasetHandlers = [
  http.post(CHAT_COMPLETIONS_URL, ({ request }) => {
    const token = /^Bearer mock-(\S+)$/.exec(request.headers.get('Authorization') ?? '')?.[1];
    const scenario = DATASET_SCENARIOS.find((s) => s === token) ?? 'success';
    return respond(scenario, request, { calls: 0 });
  }),
];
