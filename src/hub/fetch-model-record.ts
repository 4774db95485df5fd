import { HubError } from './hub-error';
import { MAX_RECORD_CHARS, parseModelRecord } from './parse-model-record';
import type { ParsedModelRecord } from './types';

/** The Hub the records come from. */
export const HUB_URL = 'https://huggingface.co';

/** `owner/name` or a bare legacy `name`: letters, digits, `-`, `_`, `.` (no path tricks). */
const MODEL_ID = /^(?:[A-Za-z0-9][\w.-]{0,95}\/)?[A-Za-z0-9][\w.-]{0,95}$/;

/** Reads Retry-After (seconds or an HTTP date) as whole seconds from now. */
function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * GET `{hubUrl}/api/models/{modelId}` and validate the answer with {@link parseModelRecord}.
 * Throws {@link HubError}: `invalid-id` (before any request), `not-found` (404, and 401, which the
 * Hub answers for private or gated repos), `rate-limited` (429, with Retry-After), `network`
 * (no answer), `http` (any other status), `invalid-json`, `too-large`, `invalid-record`.
 */
export async function fetchModelRecord(params: {
  modelId: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  hubUrl?: string;
  now?: () => number;
}): Promise<ParsedModelRecord> {
  const modelId = params.modelId.trim();
  // Read at call time, not import time, so a patched global fetch (MSW) is the one used.
  const doFetch = params.fetch ?? globalThis.fetch;
  const now = params.now ?? Date.now;
  if (!MODEL_ID.test(modelId)) {
    throw new HubError(
      'invalid-id',
      `"${modelId}" is not a model id. A model id looks like "owner/name", e.g. "onnx-community/gemma-2-2b-jpn-it".`,
    );
  }
  const path = modelId.split('/').map(encodeURIComponent).join('/');
  let response: Response;
  try {
    response = await doFetch(`${params.hubUrl ?? HUB_URL}/api/models/${path}`, {
      headers: { Accept: 'application/json' },
      signal: params.signal,
    });
  } catch (cause) {
    if (params.signal?.aborted) throw cause;
    throw new HubError(
      'network',
      'Could not reach the Hub (network error). Check the connection, or paste the model record as JSON.',
      { cause },
    );
  }
  const { status } = response;
  if (status === 404 || status === 401) {
    throw new HubError(
      'not-found',
      `Model "${modelId}" was not found on the Hub (${status}). Check the id; private and gated models are not listed.`,
      { status },
    );
  }
  if (status === 429) {
    const wait = retryAfterSeconds(response.headers.get('Retry-After'), now());
    throw new HubError(
      'rate-limited',
      `The Hub is rate limiting requests (429). ${wait === undefined ? 'Try again in a minute.' : `Try again in ${wait} s.`}`,
      { status, retryAfterSeconds: wait },
    );
  }
  if (!response.ok) {
    throw new HubError('http', `The Hub answered ${status} ${response.statusText}.`.trim(), {
      status,
    });
  }
  const text = await response.text();
  if (text.length > MAX_RECORD_CHARS) return parseModelRecord({ json: text });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new HubError('invalid-json', "The Hub's answer was not valid JSON.", { cause, status });
  }
  return parseModelRecord({ json: body });
}
