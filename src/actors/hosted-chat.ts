/**
 * The hosted chat completion for 'Format Input': `openai/gpt-oss-20b` through Hugging Face's
 * OpenAI-compatible router, streamed by `chatCompletionStream` of @huggingface/inference (this
 * module is imported on the first hosted request only, so the library never weighs on the first
 * load). Ours on top of it: the retry and back-off policy (a TanStack Query mutation), the timeouts,
 * the fallback without the JSON schema, and one `DatasetFailure` with a specific message per way it
 * can fail. The access token goes only into the Authorization header, never into a message or a log.
 */
import {
  chatCompletionStream,
  InferenceClientError,
  InferenceClientProviderApiError,
} from '@huggingface/inference';
import { MutationObserver, type QueryClient } from '@tanstack/react-query';
import { httpFailureOf, retryWait, type HttpFailure } from '../shared/api-error';
import { DatasetFailure, redactSecrets, type DatasetErrorKind } from '../shared/dataset/errors';
import { DATASET_JSON_SCHEMA } from '../shared/dataset/prompt';
import { isObject } from '../shared/guards';

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
  /** The fetch the library calls (tests and mock mode inject theirs; default the global one). */
  fetch?: typeof fetch;
  /** The chat-completions endpoint (the library's `endpointUrl`; default the router). */
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
type Settings = typeof DEFAULTS & { model: string; token: string };

/** Kinds the mutation retries by itself (bounded by `maxAttempts`). */
const TRANSIENT = new Set(['rate-limited', 'server', 'network', 'timeout']);

const CONTEXT_TOO_LONG =
  /context|too long|maximum.{0,40}tokens|token limit|max_tokens|too many tokens/i;
const SCHEMA_UNSUPPORTED = /response_format|json_schema|structured output|guided/i;

const isTooLong = ({ kind, detail }: HttpFailure) =>
  kind === 'too-large' || (kind === 'bad-request' && CONTEXT_TOO_LONG.test(detail));

/** The kind the dataset panel branches on, for a failed HTTP response. */
function failureKind(failure: HttpFailure): DatasetErrorKind {
  const { kind, status } = failure;
  if (kind === 'auth') return 'auth';
  if (kind === 'payment') return 'credits';
  if (kind === 'not-found' && status === 404) return 'model-not-served';
  if (kind === 'rate-limited') return 'rate-limited';
  if (isTooLong(failure)) return 'too-long';
  if (kind === 'server') return 'server';
  return 'bad-request';
}

/** Our message for a failed HTTP response. */
function failureMessage(failure: HttpFailure, o: Settings): string {
  const { kind, status, detail, retryAfterMs } = failure;
  const suffix = detail ? `: ${detail}` : '';
  if (kind === 'auth')
    return `The access token was refused (HTTP ${status}). Check that it is a valid Hugging Face token allowed to make calls to Inference Providers.`;
  if (kind === 'payment')
    return 'Your Hugging Face account has no inference credits left (HTTP 402). Add credits, or generate with the loaded local model.';
  if (kind === 'not-found' && status === 404)
    return `The model ${o.model} is not served by any inference provider right now (HTTP 404).`;
  if (kind === 'rate-limited')
    return `Rate limited by Hugging Face (HTTP 429). Try again ${retryWait(retryAfterMs)}.`;
  if (isTooLong(failure))
    return `The text is too long for the model's context (HTTP ${status}). Use a shorter text or fewer pairs.`;
  if (kind === 'server')
    return `The inference provider failed (HTTP ${status}${suffix}); gave up after ${o.maxAttempts} attempts.`;
  return `The request was rejected (HTTP ${status}${suffix}).`;
}

/**
 * A `ProviderApiError` as what the server said: status and body from the library's
 * `httpResponse`; status text and Retry-After from the response itself (the library keeps no
 * headers, so the injected fetch records the last response). A body the library did not read
 * (not JSON: a proxy's text or HTML page) is read here.
 */
async function providerFailure(
  error: InferenceClientProviderApiError,
  head: Response | undefined,
  token: string,
): Promise<HttpFailure> {
  const { status, body } = error.httpResponse;
  const text =
    typeof body !== 'string'
      ? JSON.stringify(body)
      : body === '' && head && !head.bodyUsed
        ? await head.text().catch(() => '')
        : body;
  return httpFailureOf(
    { status, statusText: head?.statusText ?? '', headers: head?.headers ?? new Headers() },
    text,
    { redact: (words) => redactSecrets(words, token) },
  );
}

/** `choices[0].message.content` of a provider that answered `stream: true` with one JSON body. */
async function unstreamedAnswer(head: Response): Promise<string> {
  const body: unknown = await head.json().catch(() => null);
  const choice: unknown = isObject(body) && isObject(body.choices) ? body.choices[0] : null;
  const message = isObject(choice) ? choice.message : null;
  const content = isObject(message) ? message.content : null;
  if (typeof content !== 'string')
    throw new DatasetFailure('bad-request', 'The endpoint answered without a chat completion.');
  return content;
}

/**
 * One request (no retries; see `hostedChatMutationOptions`). When the provider refuses the JSON
 * schema `response_format`, asks once more without it. Resolves with the answer text.
 */
export async function hostedChatCompletion(
  vars: HostedChatVariables,
  options: HostedChatOptions = {},
): Promise<string> {
  const o: Settings = { ...DEFAULTS, model: HOSTED_MODEL, ...options, token: vars.token };
  const endpointUrl = options.url ?? HOSTED_CHAT_URL;
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
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

  /** The last response (the library keeps only status and body of a failure). */
  const last: { response?: Response } = {};
  /**
   * The fetch handed to the library: records the response, and passes the body through a stream
   * that re-arms the timeout on every chunk and errors on abort (even where a mocked or buffered
   * body would not follow the fetch signal).
   */
  const observedFetch: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    arm();
    if (!response.ok || !response.body) return (last.response = response);
    vars.onText?.('');
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          arm();
          out.enqueue(chunk);
        },
      }),
      { signal: controller.signal },
    );
    const { status, statusText, headers } = response;
    return (last.response = new Response(body, { status, statusText, headers }));
  };

  let text = '';
  const stream = async (withSchema: boolean): Promise<string> => {
    text = '';
    let finished: string | null = null;
    try {
      for await (const chunk of chatCompletionStream(
        {
          endpointUrl,
          accessToken: vars.token,
          model: o.model,
          messages: [{ role: 'user', content: vars.prompt }],
          max_tokens: Math.min(32_768, 2048 + (vars.pairs ?? 10) * 250),
          ...(withSchema && {
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'dataset', strict: true, schema: DATASET_JSON_SCHEMA },
            },
          }),
        },
        // retry_on_error: the library would retry a 503 without end; ours is bounded.
        { fetch: observedFetch, signal: controller.signal, retry_on_error: false },
      )) {
        const choice = chunk.choices[0];
        if (choice?.delta.content) {
          text += choice.delta.content;
          vars.onText?.(text);
        }
        if (choice?.finish_reason) finished = choice.finish_reason;
      }
    } catch (error) {
      if (!(error instanceof InferenceClientProviderApiError)) throw error;
      const head = last.response;
      const ok = error.httpResponse.status < 300;
      // A 200 that is not a stream: a provider that ignored `stream: true` sent one JSON answer.
      if (ok && head && !head.headers.get('Content-Type')?.startsWith('text/event-stream')) {
        const content = await unstreamedAnswer(head);
        vars.onText?.(content);
        return content;
      }
      const failure = await providerFailure(error, head, vars.token);
      // A 200 stream that carried an error event.
      if (ok)
        throw new DatasetFailure(
          'server',
          `The inference provider reported an error: ${failure.detail || 'no details'}.`,
          { partial: text },
        );
      if (withSchema && failure.kind === 'bad-request' && SCHEMA_UNSUPPORTED.test(failure.detail))
        return stream(false);
      throw new DatasetFailure(failureKind(failure), failureMessage(failure, o), {
        status: failure.status,
        ...(failure.retryAfterMs !== undefined && { retryAfterMs: failure.retryAfterMs }),
        ...(failure.detail && { detail: failure.detail }),
      });
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
  };

  try {
    arm();
    return await stream(true);
  } catch (error) {
    if (error instanceof DatasetFailure) throw error;
    if (vars.signal?.aborted) throw cancelled();
    const partial = text ? { partial: text } : {};
    if (timedOut)
      throw new DatasetFailure(
        'timeout',
        `No answer from the inference provider within ${Math.ceil(o.timeoutMs / 1000)} s.`,
        partial,
      );
    // The library parses each stream event with JSON.parse.
    if (error instanceof SyntaxError)
      throw new DatasetFailure(
        'server',
        'The inference provider reported an error: the stream sent a line that is not JSON.',
        partial,
      );
    // Input and routing errors: the request could not even be made.
    if (error instanceof InferenceClientError)
      throw new DatasetFailure(
        'bad-request',
        `The request could not be made: ${redactSecrets(error.message, vars.token)}`,
      );
    throw new DatasetFailure(
      'network',
      `Could not reach ${new URL(endpointUrl).host}: the network is down or the request was blocked. Check the connection, or generate with the loaded local model.`,
      partial,
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
