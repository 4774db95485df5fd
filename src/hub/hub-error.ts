/** What went wrong, so the UI can say what to do next. */
export type HubErrorKind =
  | 'invalid-id'
  | 'not-found'
  | 'rate-limited'
  | 'network'
  | 'http'
  | 'invalid-json'
  | 'too-large'
  | 'invalid-record'
  | 'unknown-task';

export interface HubErrorDetails {
  /** HTTP status, where the Hub answered. */
  status?: number;
  /** Seconds to wait before trying again (429 Retry-After), where the Hub said. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * The one error type of the hub adapter: a kind to branch on and a message a person can act on.
 * (Shaped after huggingface.js `packages/hub/src/error.ts`.)
 */
export class HubError extends Error {
  override readonly name = 'HubError';
  readonly kind: HubErrorKind;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: HubErrorKind, message: string, details: HubErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** True for errors thrown by the hub adapter. */
export function isHubError(error: unknown): error is HubError {
  return error instanceof HubError;
}
