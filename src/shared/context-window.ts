/**
 * The context window a model can use here: the smaller of what its files allow (config.json's
 * `max_position_embeddings`, or a lower limit its model entry sets) and what the GPU allows for
 * the KV cache (its bytes per token against the adapter's largest buffer). Computed by the
 * worker's engine at load and reported with `ready`.
 */

/** The window assumed when a model's config gives no context length. */
export const DEFAULT_CONTEXT_WINDOW = 2048;

/** The KV cache's shape, from the model's config. */
export interface KvShape {
  layers: number;
  kvHeads: number;
  headDim: number;
  /** Bytes per cached value: 2 for f16 caches (fp16, q4f16), else 4. */
  dtypeBytes: number;
}

/** The adapter limits a buffer must fit (WebGPU `GPUSupportedLimits`). */
export interface BufferLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
}

/** Which limit decided the window. */
export type WindowSource = 'config' | 'entry' | 'memory' | 'default';

/** A model's usable window and why it is what it is. */
export interface ContextWindow {
  tokens: number;
  source: WindowSource;
  /** One sentence saying where the figure comes from (shown in the chat). */
  reason: string;
}

/** Bytes the KV cache takes per token: layers × KV heads × head size × 2 (key and value) × dtype size. */
export function kvBytesPerToken(kv: KvShape): number {
  return kv.layers * kv.kvHeads * kv.headDim * 2 * kv.dtypeBytes;
}

/** The KV cache's value size for a weights dtype: f16 activations keep an f16 cache. */
export function kvDtypeBytes(dtype: string): number {
  return dtype === 'fp16' || dtype === 'q4f16' ? 2 : 4;
}

const positive = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : null;

/**
 * The KV cache's shape from a config.json (Llama, Qwen, Phi 3, Gemma names): `num_hidden_layers`,
 * `num_key_value_heads` (else `num_attention_heads`), `head_dim` (else hidden size ÷ heads).
 * Null when the config lacks them.
 */
export function kvShapeOf(config: Record<string, unknown>, dtype: string): KvShape | null {
  const layers = positive(config.num_hidden_layers);
  const heads = positive(config.num_attention_heads);
  const kvHeads = positive(config.num_key_value_heads) ?? heads;
  const hidden = positive(config.hidden_size);
  const headDim =
    positive(config.head_dim) ?? (hidden && heads ? Math.floor(hidden / heads) : null);
  if (!layers || !kvHeads || !headDim) return null;
  return { layers, kvHeads, headDim, dtypeBytes: kvDtypeBytes(dtype) };
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The usable window: the model's own length (`max_position_embeddings`; DEFAULT_CONTEXT_WINDOW
 * when absent), lowered by the entry's `contextLimit` and by the tokens whose KV cache fits the
 * adapter's largest buffer (the smaller of `maxBufferSize` and `maxStorageBufferBindingSize`).
 */
export function contextWindow(input: {
  maxPositions: unknown;
  entryLimit?: number | undefined;
  kv: KvShape | null;
  limits: BufferLimits | null;
}): ContextWindow {
  const own = positive(input.maxPositions);
  let best: ContextWindow = own
    ? { tokens: own, source: 'config', reason: `the model's max_position_embeddings` }
    : {
        tokens: DEFAULT_CONTEXT_WINDOW,
        source: 'default',
        reason: `the model's config gives no context length; ${count(DEFAULT_CONTEXT_WINDOW)} tokens assumed`,
      };
  const entry = positive(input.entryLimit);
  if (entry && entry < best.tokens)
    best = { tokens: entry, source: 'entry', reason: `the model entry's limit` };
  if (input.kv && input.limits) {
    const perToken = kvBytesPerToken(input.kv);
    const buffer = Math.min(input.limits.maxBufferSize, input.limits.maxStorageBufferBindingSize);
    const fits = Math.floor(buffer / perToken);
    if (fits < best.tokens)
      best = {
        tokens: fits,
        source: 'memory',
        reason: `the KV cache (${count(perToken)} bytes a token) must fit this GPU's largest buffer of ${count(buffer)} bytes`,
      };
  }
  return best;
}

/** A conversation fitted to the window: how many of its first messages are left out, or why not. */
export type WindowFit =
  | { ok: true; omitted: number; tokens: number }
  | { ok: false; error: string; tooLong: 'message' | 'conversation' | 'max-new-tokens' };

/**
 * Fits a conversation and its reply (up to `maxNewTokens`) into `window` tokens. The last `keep`
 * messages always stay (the new message; a continued reply and its question); before them, the
 * oldest turns are left out — whole turns, so what is sent still starts with a user message —
 * unless `refuse`, which turns an overflow into an error naming the counts. `count` gives the
 * tokens the model sees for some messages (the system prompt and the template included).
 */
export function fitToWindow<M extends { role: string }>(input: {
  messages: readonly M[];
  count: (messages: readonly M[]) => number;
  maxNewTokens: number;
  window: number;
  keep: number;
  refuse?: boolean | undefined;
}): WindowFit {
  const { messages, maxNewTokens, window } = input;
  const room = window - maxNewTokens;
  if (room <= 0)
    return {
      ok: false,
      tooLong: 'max-new-tokens',
      error: `Max new tokens (${count(maxNewTokens)}) leaves no room in the model's window of ${count(window)} tokens: lower it below ${count(window)}.`,
    };
  const tokens = input.count(messages);
  if (tokens <= room) return { ok: true, omitted: 0, tokens };
  const keepFrom = Math.max(0, messages.length - Math.max(1, input.keep));
  const least = input.count(messages.slice(keepFrom));
  if (least > room)
    return {
      ok: false,
      tooLong: 'message',
      error: `This message is ${count(least)} tokens as the model sees it; with Max new tokens (${count(maxNewTokens)}) that is more than the model's window of ${count(window)} tokens. Shorten it or lower Max new tokens.`,
    };
  if (input.refuse)
    return {
      ok: false,
      tooLong: 'conversation',
      error: `The conversation is ${count(tokens)} tokens; with Max new tokens (${count(maxNewTokens)}) that is more than the model's window of ${count(window)} tokens. Start a new conversation, lower Max new tokens, or allow earlier messages to be left out.`,
    };
  // Where what is sent may start: a user message after the first, at the latest where `keep` starts.
  const starts: number[] = [];
  for (let i = 1; i < keepFrom; i++) if (messages[i]?.role === 'user') starts.push(i);
  starts.push(keepFrom);
  // Fewer messages never take more tokens: the first start that fits, by bisection.
  let low = 0;
  let high = starts.length - 1;
  let fitted = { omitted: keepFrom, tokens: least };
  while (low <= high) {
    const mid = (low + high) >> 1;
    const start = starts[mid] ?? keepFrom;
    const n = input.count(messages.slice(start));
    if (n <= room) {
      fitted = { omitted: start, tokens: n };
      high = mid - 1;
    } else low = mid + 1;
  }
  return { ok: true, ...fitted };
}
