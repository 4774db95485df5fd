/** Every way 'Format Input' can fail; each has its own message (see `DatasetError.message`). */
export type DatasetErrorKind =
  | 'empty-input'
  | 'no-token'
  | 'too-long'
  | 'bad-count'
  | 'auth'
  | 'credits'
  | 'model-not-served'
  | 'rate-limited'
  | 'server'
  | 'timeout'
  | 'network'
  | 'bad-request'
  | 'stream-ended'
  | 'empty-output'
  | 'not-json'
  | 'wrong-shape'
  | 'no-valid-entries'
  | 'local'
  | 'cancelled'
  | 'unknown';

/** A failure as data: serialisable, safe to show and log (never holds the access token). */
export interface DatasetError {
  kind: DatasetErrorKind;
  /** A message a person can act on. */
  message: string;
  /** HTTP status, when the failure came from the hosted endpoint. */
  status?: number;
  /** How long the server asked to wait (429 Retry-After), in ms. */
  retryAfterMs?: number;
  /** Whether trying again unchanged can help (retry button shown). */
  retryable: boolean;
}

/** Kinds for which the same request may succeed later. */
const RETRYABLE: ReadonlySet<DatasetErrorKind> = new Set([
  'rate-limited',
  'server',
  'timeout',
  'network',
  'stream-ended',
  'empty-output',
  'not-json',
  'wrong-shape',
  'no-valid-entries',
  'local',
  'cancelled',
  'unknown',
]);

export function isRetryable(kind: DatasetErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/** Thrown by the actors; carries a `DatasetError`. */
export class DatasetFailure extends Error {
  override readonly name = 'DatasetFailure';
  readonly kind: DatasetErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** Text received before the failure (a stream cut short), kept for the raw download. */
  readonly partial: string | undefined;

  constructor(
    kind: DatasetErrorKind,
    message: string,
    extra: { status?: number; retryAfterMs?: number; partial?: string } = {},
  ) {
    super(message);
    this.kind = kind;
    this.status = extra.status;
    this.retryAfterMs = extra.retryAfterMs;
    this.partial = extra.partial;
  }

  toDatasetError(): DatasetError {
    return {
      kind: this.kind,
      message: this.message,
      retryable: isRetryable(this.kind),
      ...(this.status !== undefined && { status: this.status }),
      ...(this.retryAfterMs !== undefined && { retryAfterMs: this.retryAfterMs }),
    };
  }
}

/** Hugging Face user/org tokens; masked wherever text from outside is shown. */
const TOKEN_PATTERN = /\b(?:hf|api_org)_[A-Za-z0-9]{8,}\b/g;

/** Removes anything that looks like an access token (and `token` itself) from a text. */
export function redactSecrets(text: string, token?: string): string {
  let out = text;
  if (token && token.length >= 4) out = out.split(token).join('[redacted]');
  return out.replace(TOKEN_PATTERN, '[redacted]').replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
}

/** Any thrown value as a `DatasetError` (what the machine stores and the panel shows). */
export function toDatasetError(error: unknown): DatasetError {
  if (error instanceof DatasetFailure) return error.toDatasetError();
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: 'unknown',
    message: redactSecrets(message || 'Something went wrong.'),
    retryable: true,
  };
}

/** Messages for failures found on this side (not in the HTTP layer). */
export const DATASET_MESSAGES = {
  emptyInput: 'The sample text is empty: type or paste a text to turn into question/answer pairs.',
  noToken:
    'Enter a Hugging Face access token to use the hosted model, or generate with the loaded local model.',
  tooLong: (chars: number, max: number) =>
    `The text is too long: ${chars.toLocaleString('en')} characters, at most ${max.toLocaleString('en')}.`,
  badCount: (count: number, max: number) =>
    `The number of pairs must be a whole number from 1 to ${max}; got ${Number.isFinite(count) ? count : 'nothing'}.`,
  cancelled: 'Generation cancelled. The output so far is kept: Retry continues where it stopped.',
  notJson: (detail: string) => `The model's reply is not valid JSON (${detail}).`,
  wrongShape: (detail: string) => `The model's JSON does not have the expected shape: ${detail}.`,
  emptyOutput: 'The model returned an empty reply.',
  noValidEntries: (invalid: number) =>
    `The model's reply had no usable pairs (${invalid} invalid). Download the raw output to see it, or retry.`,
} as const;
