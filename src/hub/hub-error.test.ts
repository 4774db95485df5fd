import { describe, expect, it } from 'vitest';
import { HubError, isHubError } from './hub-error';

describe('HubError', () => {
  it('carries kind, status, Retry-After and cause', () => {
    const cause = new Error('x');
    const error = new HubError('rate-limited', 'wait', {
      status: 429,
      retryAfterSeconds: 3,
      cause,
    });
    expect(error).toMatchObject({
      name: 'HubError',
      kind: 'rate-limited',
      status: 429,
      retryAfterSeconds: 3,
      message: 'wait',
    });
    expect(error.cause).toBe(cause);
    expect(isHubError(error)).toBe(true);
    expect(isHubError(new Error('x'))).toBe(false);
  });
});
