import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createApiError,
  httpErrorKind,
  isApiError,
  parseRetryAfter,
  readHttpFailure,
  retryWait,
} from './api-error';

class DomainError extends ApiError<'special' | 'other'> {
  override name = 'DomainError';
}

describe('parseRetryAfter', () => {
  it('seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 1.5 ')).toBe(1500);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-4')).toBeUndefined();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 01 Jan 2020 00:00:10 GMT', now)).toBe(0);
  });

  it('retryWait names the wait or a minute', () => {
    expect(retryWait(1200)).toBe('in 2 s');
    expect(retryWait(undefined)).toBe('in a minute');
  });
});

describe('httpErrorKind', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [402, 'payment'],
    [404, 'not-found'],
    [429, 'rate-limited'],
    [413, 'too-large'],
    [422, 'bad-request'],
    [503, 'server'],
    [418, 'http'],
  ])('%i → %s', (status, kind) => expect(httpErrorKind(status)).toBe(kind));
});

describe('createApiError', () => {
  it("reads kind, status, Retry-After and the server's words from a JSON error", async () => {
    const response = new Response(JSON.stringify({ error: { message: 'slow   down' } }), {
      status: 429,
      headers: { 'Retry-After': '7' },
    });
    const error = await createApiError(response);
    expect(error).toBeInstanceOf(ApiError);
    expect(isApiError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 7000 });
    expect(error.detail).toBe('slow down');
    expect(error.message).toBe('slow down (HTTP 429).');
  });

  it('takes `error` or `message` fields, else the text; falls back to the status text', async () => {
    const read = (body: string, init: ResponseInit = { status: 500 }) =>
      readHttpFailure(new Response(body, init));
    expect((await read('{"error":"bad thing"}')).detail).toBe('bad thing');
    expect((await read('{"message":"other"}')).detail).toBe('other');
    expect((await read('plain\n failure')).detail).toBe('plain failure');
    const bare = await createApiError(new Response('', { status: 502, statusText: 'Bad Gateway' }));
    expect(bare.message).toBe('Bad Gateway (HTTP 502).');
    expect(bare.detail).toBeUndefined();
  });

  it('redacts and bounds the detail; keeps whitespace when asked', async () => {
    const secret = 'hf_abcdefghijklmnop';
    const error = await createApiError(
      new Response(`token ${secret} ${'x'.repeat(500)}`, { status: 400 }),
      {
        redact: (text) => text.split(secret).join('[redacted]'),
        maxDetail: 40,
      },
    );
    expect(error.detail).not.toContain(secret);
    expect(error.message).not.toContain(secret);
    expect(error.detail?.length).toBeLessThanOrEqual(40);
    const kept = await readHttpFailure(new Response('a\n  b', { status: 500 }), {
      keepWhitespace: true,
    });
    expect(kept.detail).toBe('a\n  b');
  });

  it('builds a subclass with its own kinds and message', async () => {
    const error = await createApiError<'special' | 'other', DomainError>(
      new Response('{}', { status: 404 }),
      {
        ErrorClass: DomainError,
        kind: ({ status }) => (status === 404 ? 'special' : 'other'),
        message: ({ status }) => `Nothing here (${status}).`,
      },
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ name: 'DomainError', kind: 'special', status: 404 });
    expect(error.message).toBe('Nothing here (404).');
  });

  it('a body that cannot be read still gives an error', async () => {
    const response = new Response('x', { status: 500 });
    await response.text();
    const error = await createApiError(response);
    expect(error).toMatchObject({ kind: 'server', status: 500 });
  });
});
