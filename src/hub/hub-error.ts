import { ApiError, type ApiErrorFields } from '../shared/api-error';

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

export interface HubErrorDetails extends ApiErrorFields {
  /** Seconds to wait before trying again (429 Retry-After), where the Hub said. */
  retryAfterSeconds?: number;
}

/**
 * The error type of the hub adapter: the app's one {@link ApiError} with the hub's kinds (HTTP
 * failures are built by `createApiError`, which reads Retry-After).
 */
export class HubError extends ApiError<HubErrorKind> {
  override name = 'HubError';

  constructor(kind: HubErrorKind, message: string, details: HubErrorDetails = {}) {
    const { retryAfterSeconds, ...fields } = details;
    super(kind, message, {
      ...fields,
      ...(retryAfterSeconds !== undefined && { retryAfterMs: retryAfterSeconds * 1000 }),
    });
  }

  /** Retry-After in whole seconds (rounded up), where the Hub said. */
  get retryAfterSeconds(): number | undefined {
    return this.retryAfterMs === undefined ? undefined : Math.ceil(this.retryAfterMs / 1000);
  }
}

/** True for errors thrown by the hub adapter. */
export function isHubError(error: unknown): error is HubError {
  return error instanceof HubError;
}
