/**
 * The one error model for calls over HTTP (hosted chat, the training service, the Hub), shaped
 * after huggingface.js `packages/hub/src/error.ts` (`createApiError`): a typed error with a kind
 * to branch on, the HTTP status, the server's Retry-After, a message a person can act on and the
 * cause, built from a failed `Response` by one factory. Pure: no fetch, no DOM.
 */
import { isObject } from './guards';

/** What an HTTP status means for the caller (the default kinds of {@link createApiError}). */
export type HttpErrorKind =
  | 'auth'
  | 'payment'
  | 'not-found'
  | 'rate-limited'
  | 'too-large'
  | 'bad-request'
  | 'server'
  | 'http';

/** Every kind of an {@link ApiError} that no domain refines: HTTP kinds plus transport failures. */
export type ApiErrorKind = HttpErrorKind | 'network' | 'timeout' | 'invalid-response';

export interface ApiErrorFields {
  /** HTTP status, where a server answered. */
  status?: number;
  /** How long the server asked to wait before trying again (Retry-After), in ms. */
  retryAfterMs?: number;
  /** The server's own words (its `error`/`message` field or text), short and redacted. */
  detail?: string;
  cause?: unknown;
}

/** A failed call as a value: `kind` to branch on, `message` to show. */
export class ApiError<K extends string = ApiErrorKind> extends Error {
  override name = 'ApiError';
  readonly kind: K;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly detail: string | undefined;

  constructor(kind: K, message: string, fields: ApiErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.kind = kind;
    this.status = fields.status;
    this.retryAfterMs = fields.retryAfterMs;
    this.detail = fields.detail;
  }
}

export function isApiError(error: unknown): error is ApiError<string> {
  return error instanceof ApiError;
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** "in N s" (whole seconds, rounded up) or "in a minute" when the server named no wait. */
export function retryWait(retryAfterMs: number | undefined): string {
  return retryAfterMs === undefined ? 'in a minute' : `in ${Math.ceil(retryAfterMs / 1000)} s`;
}

export function httpErrorKind(status: number): HttpErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'payment';
  if (status === 404 || status === 410) return 'not-found';
  if (status === 429) return 'rate-limited';
  if (status === 413) return 'too-large';
  if (status === 400 || status === 422) return 'bad-request';
  if (status >= 500) return 'server';
  return 'http';
}

/** What a failed response said, read once: the input of every message callback. */
export interface HttpFailure {
  kind: HttpErrorKind;
  status: number;
  statusText: string;
  /** The server's own words ('' when it sent none). */
  detail: string;
  retryAfterMs: number | undefined;
}

/** The server's words: a JSON body's `error` (string or `{message}`) or `message`, else the text. */
function detailOf(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body)) {
      const { error } = body;
      if (typeof error === 'string') return error;
      if (typeof error === 'object' && error !== null && 'message' in error) {
        if (typeof error.message === 'string') return error.message;
      }
      if (typeof body.message === 'string') return body.message;
    }
  } catch {
    // Not JSON: the text itself is the detail.
  }
  return text;
}

export interface CreateApiErrorOptions<K extends string, E extends ApiError<K>> {
  /** The kind for this failure (default {@link httpErrorKind} of the status). */
  kind?: (failure: HttpFailure) => K;
  /** The message a person can act on (default: the server's words and the status). */
  message?: (failure: HttpFailure) => string;
  /** Applied to the server's words before they go anywhere (e.g. masking a token). */
  redact?: (text: string) => string;
  /** Longest detail kept, in characters (default 300). */
  maxDetail?: number;
  /** Keep the server's line breaks and spacing (default: collapsed to single spaces). */
  keepWhitespace?: boolean;
  now?: number;
  /** A subclass to build (its constructor takes `(kind, message, fields)`). */
  ErrorClass?: new (kind: K, message: string, fields: ApiErrorFields) => E;
}

/** What {@link httpFailureOf} needs of a response besides its body. */
export interface ResponseHead {
  status: number;
  statusText: string;
  headers: Headers;
}

type ReadOptions = Pick<
  CreateApiErrorOptions<string, ApiError<string>>,
  'redact' | 'maxDetail' | 'keepWhitespace' | 'now'
>;

/**
 * A failed response's head and body text as an {@link HttpFailure}: for clients whose library
 * has read the body already (the hosted chat's @huggingface/inference).
 */
export function httpFailureOf(
  head: ResponseHead,
  text: string,
  options: ReadOptions = {},
): HttpFailure {
  const maxDetail = options.maxDetail ?? 300;
  const words = detailOf(text.slice(0, Math.max(4000, maxDetail * 2)));
  const redact = options.redact ?? ((s: string) => s);
  const detail = redact(
    (options.keepWhitespace ? words : words.replace(/\s+/g, ' ')).trim().slice(0, maxDetail),
  );
  return {
    kind: httpErrorKind(head.status),
    status: head.status,
    statusText: head.statusText,
    detail,
    retryAfterMs: parseRetryAfter(head.headers.get('Retry-After'), options.now),
  };
}

/** Reads a failed response once (body, Retry-After) into an {@link HttpFailure}. */
export async function readHttpFailure(
  response: Response,
  options: ReadOptions = {},
): Promise<HttpFailure> {
  return httpFailureOf(response, await response.text().catch(() => ''), options);
}

/**
 * The one factory: a failed `Response` → an {@link ApiError} (or the given subclass) with kind,
 * status, Retry-After (parsed here, nowhere else), the server's words as `detail` and a message.
 * With no `ErrorClass` it builds an ApiError of the HTTP kinds; a domain's own kinds come with its
 * subclass: `kind` and `ErrorClass` together.
 */
export function createApiError(
  response: Response,
  options?: Omit<CreateApiErrorOptions<HttpErrorKind, ApiError<HttpErrorKind>>, 'ErrorClass'>,
): Promise<ApiError<HttpErrorKind>>;
export function createApiError<K extends string, E extends ApiError<K>>(
  response: Response,
  options: CreateApiErrorOptions<K, E> &
    Required<Pick<CreateApiErrorOptions<K, E>, 'kind' | 'ErrorClass'>>,
): Promise<E>;
export async function createApiError(
  response: Response,
  options: CreateApiErrorOptions<string, ApiError<string>> = {},
): Promise<ApiError<string>> {
  const failure = await readHttpFailure(response, options);
  const kind = options.kind ? options.kind(failure) : failure.kind;
  const message = options.message
    ? options.message(failure)
    : `${failure.detail || failure.statusText || 'The server refused the request'} (HTTP ${failure.status}).`;
  const fields: ApiErrorFields = {
    status: failure.status,
    ...(failure.retryAfterMs !== undefined && { retryAfterMs: failure.retryAfterMs }),
    ...(failure.detail && { detail: failure.detail }),
  };
  return options.ErrorClass
    ? new options.ErrorClass(kind, message, fields)
    : new ApiError(kind, message, fields);
}
