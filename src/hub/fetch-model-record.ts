import { createApiError, retryWait } from '../shared/api-error';
import { modelIdProblem } from '../shared/model-id';
import { HubError, type HubErrorKind } from './hub-error';
import { MAX_RECORD_CHARS, parseModelRecord } from './parse-model-record';
import type { ParsedModelRecord } from './types';

/** The Hub the records come from. */
export const HUB_URL = 'https://huggingface.co';

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
  const problem = modelIdProblem(modelId);
  if (problem) throw new HubError('invalid-id', problem);
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
  if (!response.ok) {
    throw await createApiError<HubErrorKind, HubError>(response, {
      ErrorClass: HubError,
      now: now(),
      // 401 too: the Hub answers it for private or gated repos.
      kind: ({ status }) =>
        status === 404 || status === 401 ? 'not-found' : status === 429 ? 'rate-limited' : 'http',
      message: ({ status, statusText, retryAfterMs }) =>
        status === 404 || status === 401
          ? `Model "${modelId}" was not found on the Hub (${status}). Check the id; private and gated models are not listed.`
          : status === 429
            ? `The Hub is rate limiting requests (429). Try again ${retryWait(retryAfterMs)}.`
            : `The Hub answered ${status} ${statusText}.`.replace(' .', '.'),
    });
  }
  const text = await response.text();
  if (text.length > MAX_RECORD_CHARS) return parseModelRecord({ json: text });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new HubError('invalid-json', "The Hub's answer was not valid JSON.", {
      cause,
      status: response.status,
    });
  }
  return parseModelRecord({ json: body });
}
