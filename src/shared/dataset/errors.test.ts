import { describe, expect, it } from 'vitest';
import { DatasetFailure, redactSecrets, toDatasetError } from './errors';
import { requestProblem } from './chunk-state';

describe('redactSecrets', () => {
  it('removes the given token, hf_ tokens and bearer values', () => {
    expect(redactSecrets('bad token my-secret-1 here', 'my-secret-1')).toBe(
      'bad token [redacted] here',
    );
    expect(redactSecrets('token hf_abcdefghijklmnop refused')).toBe('token [redacted] refused');
    expect(redactSecrets('Authorization: Bearer xyz.123')).toBe('Authorization: Bearer [redacted]');
  });
});

describe('toDatasetError', () => {
  it('keeps a DatasetFailure as data', () => {
    const e = new DatasetFailure('rate-limited', 'slow down', { status: 429, retryAfterMs: 1000 });
    expect(toDatasetError(e)).toEqual({
      kind: 'rate-limited',
      message: 'slow down',
      status: 429,
      retryAfterMs: 1000,
      retryable: true,
    });
    expect(toDatasetError(new DatasetFailure('auth', 'no')).retryable).toBe(false);
  });
  it('turns anything else into an unknown, redacted error', () => {
    expect(toDatasetError(new Error('boom hf_abcdefghijkl'))).toEqual({
      kind: 'unknown',
      message: 'boom [redacted]',
      retryable: true,
    });
  });
});

describe('requestProblem', () => {
  const req = { text: 'Some text.', count: 3, source: 'hosted' as const, hasToken: true };
  it('accepts a text with a token, or local without one', () => {
    expect(requestProblem(req, 100)).toBeNull();
    expect(requestProblem({ ...req, source: 'local', hasToken: false }, 100)).toBeNull();
  });
  it('refuses an empty text, a too-long text, a hosted request without a token', () => {
    expect(requestProblem({ ...req, text: '  ' }, 100)?.kind).toBe('empty-input');
    expect(requestProblem(req, 5)?.message).toBe('The text is too long: 10 characters, at most 5.');
    expect(requestProblem({ ...req, hasToken: false }, 100)?.kind).toBe('no-token');
  });
});
