import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTEXT_WINDOW,
  contextWindow,
  fitToWindow,
  kvBytesPerToken,
  kvShapeOf,
} from './context-window';

// Llama 3.2 1B's config.json (the fields the window reads).
const LLAMA_1B = {
  num_hidden_layers: 16,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  hidden_size: 2048,
  head_dim: 64,
  max_position_embeddings: 131072,
};

describe('kvShapeOf / kvBytesPerToken', () => {
  it('Llama 3.2 1B q4f16: 16 layers × 8 KV heads × 64 × 2 × 2 bytes = 32 KiB a token', () => {
    const kv = kvShapeOf(LLAMA_1B, 'q4f16');
    expect(kv).toEqual({ layers: 16, kvHeads: 8, headDim: 64, dtypeBytes: 2 });
    expect(kv && kvBytesPerToken(kv)).toBe(32 * 1024);
  });

  it('no head_dim or KV heads: hidden ÷ heads and the attention heads; fp32 caches take 4 bytes', () => {
    expect(
      kvShapeOf({ num_hidden_layers: 2, num_attention_heads: 4, hidden_size: 64 }, 'q4'),
    ).toEqual({ layers: 2, kvHeads: 4, headDim: 16, dtypeBytes: 4 });
  });

  it('a config without layers gives no shape', () => {
    expect(kvShapeOf({ hidden_size: 64 }, 'fp32')).toBeNull();
  });
});

describe('contextWindow', () => {
  const kv = { layers: 16, kvHeads: 8, headDim: 64, dtypeBytes: 2 };
  const big = { maxBufferSize: 2 ** 32, maxStorageBufferBindingSize: 2 ** 31 };

  it('the config length when the GPU holds its KV cache', () => {
    expect(contextWindow({ maxPositions: 8192, kv, limits: big })).toMatchObject({
      tokens: 8192,
      source: 'config',
    });
  });

  it('memory: the largest buffer (the smaller limit) over the bytes a token', () => {
    const limits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 };
    const window = contextWindow({ maxPositions: 131072, kv, limits });
    expect(window).toMatchObject({ tokens: 4096, source: 'memory' });
    expect(window.reason).toContain('32,768 bytes a token');
    expect(window.reason).toContain('134,217,728 bytes');
  });

  it("the entry's lower limit wins over the config; a higher one does not", () => {
    expect(
      contextWindow({ maxPositions: 8192, entryLimit: 4096, kv: null, limits: null }),
    ).toMatchObject({
      tokens: 4096,
      source: 'entry',
    });
    expect(
      contextWindow({ maxPositions: 2048, entryLimit: 4096, kv: null, limits: null }),
    ).toMatchObject({
      tokens: 2048,
      source: 'config',
    });
  });

  it('no context length in the config: the stated default, said so', () => {
    const window = contextWindow({ maxPositions: undefined, kv: null, limits: null });
    expect(window).toMatchObject({ tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' });
    expect(window.reason).toContain('gives no context length');
    expect(contextWindow({ maxPositions: -1, kv: null, limits: null }).source).toBe('default');
  });
});

describe('fitToWindow', () => {
  type M = { role: 'user' | 'assistant'; content: string };
  // Every message is 10 tokens, the prompt's fixed part 5.
  const count = (messages: readonly M[]) => 5 + messages.length * 10;
  const turns = (n: number): M[] =>
    Array.from({ length: n }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: String(i),
    }));

  it('fits: nothing left out', () => {
    expect(
      fitToWindow({ messages: turns(3), count, maxNewTokens: 10, window: 100, keep: 1 }),
    ).toEqual({
      ok: true,
      omitted: 0,
      tokens: 35,
    });
  });

  it('past the window: the oldest whole turns go, what is sent starts with a user message', () => {
    // 7 messages = 75 tokens; room 60 - 10 = 50 → 4 messages (45), starting at index 4 (user).
    const fit = fitToWindow({ messages: turns(7), count, maxNewTokens: 10, window: 60, keep: 1 });
    expect(fit).toEqual({ ok: true, omitted: 4, tokens: 35 });
  });

  it('refuse: an overflow is an error naming the counts', () => {
    const fit = fitToWindow({
      messages: turns(7),
      count,
      maxNewTokens: 10,
      window: 60,
      keep: 1,
      refuse: true,
    });
    expect(fit).toEqual({
      ok: false,
      tooLong: 'conversation',
      error:
        "The conversation is 75 tokens; with Max new tokens (10) that is more than the model's window of 60 tokens. Start a new conversation, lower Max new tokens, or allow earlier messages to be left out.",
    });
  });

  it('a single message longer than the window is refused with both figures', () => {
    const long = (messages: readonly M[]) => 5 + messages.length * 100;
    const fit = fitToWindow({
      messages: turns(3),
      count: long,
      maxNewTokens: 10,
      window: 60,
      keep: 1,
    });
    expect(fit).toMatchObject({ ok: false, tooLong: 'message' });
    expect(!fit.ok && fit.error).toBe(
      "This message is 105 tokens as the model sees it; with Max new tokens (10) that is more than the model's window of 60 tokens. Shorten it or lower Max new tokens.",
    );
  });

  it('Max new tokens not below the window is refused, named', () => {
    const fit = fitToWindow({ messages: turns(1), count, maxNewTokens: 128, window: 128, keep: 1 });
    expect(fit).toMatchObject({ ok: false, tooLong: 'max-new-tokens' });
    expect(!fit.ok && fit.error).toContain('Max new tokens (128)');
  });

  it('keep: a continued reply keeps its question', () => {
    const fit = fitToWindow({ messages: turns(6), count, maxNewTokens: 10, window: 40, keep: 2 });
    expect(fit).toEqual({ ok: true, omitted: 4, tokens: 25 });
  });
});
