/**
 * The hosted chat completion for 'Format Input': `openai/gpt-oss-20b` through Hugging Face's
 * OpenAI-compatible router, streamed (SSE), with plain `fetch` (injectable) so nothing of an SDK
 * weighs on the page. Every failure is a `DatasetFailure` with a specific message; the access token
 * goes only into the Authorization header, never into a message or a log.
 */
import { MutationObserver, type QueryClient } from '@tanstack/react-query';
import { DatasetFailure, redactSecrets } from '../shared/dataset/errors';
import { DATASET_JSON_SCHEMA } from '../shared/dataset/prompt';
import { decodeStreamData, splitSseBuffer } from '../shared/dataset/sse';

export const HOSTED_CHAT_URL = 'https://router.huggingface.co/v1/chat/completions';
export const HOSTED_MODEL = 'openai/gpt-oss-20b';

export interface HostedChatVariables {
  token: string;
  /** The one user message: instructions plus the sample text. */
  prompt: string;
  /** Pairs asked for (sizes `max_tokens`). */
  pairs?: number;
  signal?: AbortSignal;
  /** Called with the whole answer text received so far (restarts from '' on a retry). */
  onText?: (textSoFar: string) => void;
}

export interface HostedChatOptions {
  fetch?: typeof fetch;
  url?: string;
  model?: string;
  /** Longest wait for the response and between two stream chunks (ms, default 60 s). */
  timeoutMs?: number;
  /** Attempts for 429 / 5xx / network / timeout failures (default 3). */
  maxAttempts?: number;
  /** A Retry-After longer than this fails at once, naming the wait (ms, default 60 s). */
  maxRetryAfterMs?: number;
  /** First back-off delay, doubled per attempt (ms, default 1 s). */
  backoffMs?: number;
}

const DEFAULTS = { timeoutMs: 60_000, maxAttempts: 3, maxRetryAfterMs: 60_000, backoffMs: 1000 };

/** Kinds the mutation retries by itself (bounded by `maxAttempts`). */
const TRANSIENT = new Set(['rate-limited', 'server', 'network', 'timeout']);

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

async function errorDetail(response: Response, token: string): Promise<string> {
  const text = (await response.text().catch(() => '')).slice(0, 2000);
  let detail = text;
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const error = body.error;
    detail =
      typeof error === 'string'
        ? error
        : typeof error === 'object' && error !== null && 'message' in error
          ? String(error.message)
          : typeof body.message === 'string'
            ? body.message
            : text;
  } catch {
    // Not JSON: the text itself is the detail.
  }
  return redactSecrets(detail.replace(/\s+/g, ' ').trim().slice(0, 300), token);
}

const CONTEXT_TOO_LONG =
  /context|too long|maximum.{0,40}tokens|token limit|max_tokens|too many tokens/i;
const SCHEMA_UNSUPPORTED = /response_format|json_schema|structured output|guided/i;

function httpFailure(
  status: number,
  detail: string,
  retryAfterMs: number | undefined,
  o: typeof DEFAULTS & { model: string },
) {
  const suffix = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403)
    return new DatasetFailure(
      'auth',
      `The access token was refused (HTTP ${status}). Check that it is a valid Hugging Face token allowed to make calls to Inference Providers.`,
      { status },
    );
  if (status === 402)
    return new DatasetFailure(
      'credits',
      'Your Hugging Face account has no inference credits left (HTTP 402). Add credits, or generate with the loaded local model.',
      { status },
    );
  if (status === 404)
    return new DatasetFailure(
      'model-not-served',
      `The model ${o.model} is not served by any inference provider right now (HTTP 404).`,
      { status },
    );
  if (status === 429) {
    const wait =
      retryAfterMs === undefined ? 'in a minute' : `in ${Math.ceil(retryAfterMs / 1000)} s`;
    return new DatasetFailure(
      'rate-limited',
      `Rate limited by Hugging Face (HTTP 429). Try again ${wait}.`,
      { status, ...(retryAfterMs !== undefined && { retryAfterMs }) },
    );
  }
  if (status === 413 || ((status === 400 || status === 422) && CONTEXT_TOO_LONG.test(detail)))
    return new DatasetFailure(
      'too-long',
      `The text is too long for the model's context (HTTP ${status}). Use a shorter text or fewer pairs.`,
      { status },
    );
  if (status >= 500)
    return new DatasetFailure(
      'server',
      `The inference provider failed (HTTP ${status}${suffix}); gave up after ${o.maxAttempts} attempts.`,
      { status },
    );
  return new DatasetFailure('bad-request', `The request was rejected (HTTP ${status}${suffix}).`, {
    status,
  });
}

/** Reads the SSE body, reporting the answer text so far; resolves with the whole answer. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onChunk: () => void,
  onText: ((text: string) => void) | undefined,
): Promise<string> {
  const reader = body.getReader();
  // A mocked or buffered body may not follow the fetch signal: cancel the reader ourselves.
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop);
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let finished: string | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (signal.aborted) throw new DOMException('The stream was aborted.', 'AbortError');
    if (done) break;
    onChunk();
    buffer += decoder.decode(value, { stream: true });
    const { events, rest } = splitSseBuffer(buffer);
    buffer = rest;
    for (const data of events) {
      const event = decodeStreamData(data);
      if (event.error)
        throw new DatasetFailure(
          'server',
          `The inference provider reported an error: ${event.error}.`,
          {
            partial: text,
          },
        );
      if (event.done) finished ??= 'stop';
      if (event.content) {
        text += event.content;
        onText?.(text);
      }
      if (event.finishReason) finished = event.finishReason;
    }
  }
  if (finished === 'length')
    throw new DatasetFailure(
      'too-long',
      `The reply was cut off at the model's length limit after ${text.length} characters. Ask for fewer pairs or use a shorter text.`,
      { partial: text },
    );
  if (finished === null)
    throw new DatasetFailure(
      'stream-ended',
      `The response stream ended before the model finished (${text.length} characters received). The partial output is kept.`,
      { partial: text },
    );
  return text;
}

/**
 * One request (no retries; see `hostedChatMutationOptions`). When the provider refuses the JSON
 * schema `response_format`, asks once more without it. Resolves with the answer text
 * (`choices[0].message.content`), streamed or not.
 */
export async function hostedChatCompletion(
  vars: HostedChatVariables,
  options: HostedChatOptions = {},
): Promise<string> {
  const o = { ...DEFAULTS, model: HOSTED_MODEL, ...options };
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const cancelled = () => new DatasetFailure('cancelled', 'Generation cancelled.');
  if (vars.signal?.aborted) throw cancelled();
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, o.timeoutMs);
  };
  const onAbort = () => controller.abort();
  vars.signal?.addEventListener('abort', onAbort);
  const request = (withSchema: boolean) =>
    doFetch(options.url ?? HOSTED_CHAT_URL, {
      method: 'POST',
      headers: { Authorization: `Bearer ${vars.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: o.model,
        messages: [{ role: 'user', content: vars.prompt }],
        stream: true,
        max_tokens: Math.min(32_768, 2048 + (vars.pairs ?? 10) * 250),
        ...(withSchema && {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'dataset', strict: true, schema: DATASET_JSON_SCHEMA },
          },
        }),
      }),
      signal: controller.signal,
    });
  try {
    arm();
    let response = await request(true);
    if (!response.ok && (response.status === 400 || response.status === 422)) {
      const detail = await errorDetail(response.clone(), vars.token);
      if (SCHEMA_UNSUPPORTED.test(detail)) response = await request(false);
    }
    if (!response.ok) {
      const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
      throw httpFailure(response.status, await errorDetail(response, vars.token), retryAfter, o);
    }
    vars.onText?.('');
    const type = response.headers.get('Content-Type') ?? '';
    if (type.includes('text/event-stream') && response.body)
      return await readStream(response.body, controller.signal, arm, vars.onText);
    const body = (await response.json().catch(() => null)) as {
      choices?: Array<{ message?: { content?: string | null } }>;
    } | null;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string')
      throw new DatasetFailure('bad-request', 'The endpoint answered without a chat completion.');
    vars.onText?.(content);
    return content;
  } catch (error) {
    if (error instanceof DatasetFailure) throw error;
    if (vars.signal?.aborted) throw cancelled();
    if (timedOut)
      throw new DatasetFailure(
        'timeout',
        `No answer from the inference provider within ${Math.ceil(o.timeoutMs / 1000)} s.`,
      );
    throw new DatasetFailure(
      'network',
      `Could not reach ${new URL(options.url ?? HOSTED_CHAT_URL).host}: the network is down or the request was blocked. Check the connection, or generate with the loaded local model.`,
    );
  } finally {
    clearTimeout(timer);
    vars.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * TanStack Query mutation options for the hosted call: retries 429 (after its Retry-After), 5xx,
 * timeouts and network failures up to `maxAttempts` in all, with exponential back-off; never when
 * cancelled. `networkMode: 'always'` so an offline browser fails fast instead of pausing.
 */
export function hostedChatMutationOptions(options: HostedChatOptions = {}) {
  const o = { ...DEFAULTS, ...options };
  return {
    mutationKey: ['dataset', 'hosted-chat'] as const,
    mutationFn: (vars: HostedChatVariables) => hostedChatCompletion(vars, options),
    networkMode: 'always' as const,
    retry: (failureCount: number, error: Error) =>
      error instanceof DatasetFailure &&
      TRANSIENT.has(error.kind) &&
      // failureCount is 0 after the first failure: attempts in all = failureCount + 1.
      failureCount + 1 < o.maxAttempts &&
      (error.retryAfterMs ?? 0) <= o.maxRetryAfterMs,
    retryDelay: (failureCount: number, error: Error) =>
      error instanceof DatasetFailure && error.retryAfterMs !== undefined
        ? error.retryAfterMs
        : o.backoffMs * 2 ** failureCount,
  };
}

/** Runs the hosted call as a mutation of `queryClient` (usable outside React, e.g. in an actor). */
export function runHostedChat(
  queryClient: QueryClient,
  vars: HostedChatVariables,
  options: HostedChatOptions = {},
): Promise<string> {
  return new MutationObserver(queryClient, hostedChatMutationOptions(options)).mutate(vars);
}
