import { describe, expect, it } from 'vitest';
import { decodeStreamData, splitSseBuffer } from './sse';

describe('splitSseBuffer', () => {
  it('returns complete events and keeps the unfinished rest', () => {
    const r = splitSseBuffer('data: {"a":1}\n\n: keep-alive\n\ndata: [DONE]\n\ndata: {"b"');
    expect(r.events).toEqual(['{"a":1}', '[DONE]']);
    expect(r.rest).toBe('data: {"b"');
  });
  it('joins multi-line data and accepts CRLF', () => {
    expect(splitSseBuffer('event: x\r\ndata: a\r\ndata: b\r\n\r\n').events).toEqual(['a\nb']);
  });
});

describe('decodeStreamData', () => {
  it('content, reasoning, finish reason, done', () => {
    expect(decodeStreamData('{"choices":[{"delta":{"content":"hi"}}]}').content).toBe('hi');
    expect(decodeStreamData('{"choices":[{"delta":{"reasoning":"hm"}}]}').reasoning).toBe('hm');
    expect(
      decodeStreamData('{"choices":[{"delta":{},"finish_reason":"length"}]}').finishReason,
    ).toBe('length');
    expect(decodeStreamData('[DONE]').done).toBe(true);
  });
  it('errors sent in the stream, and lines that are not JSON', () => {
    expect(decodeStreamData('{"error":{"message":"overloaded"}}').error).toBe('overloaded');
    expect(decodeStreamData('{"error":"bad"}').error).toBe('bad');
    expect(decodeStreamData('nope').error).toMatch(/not JSON/);
  });
});
