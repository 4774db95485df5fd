/**
 * The KV cache holds every token of the conversation so far except the last generated one.
 * transformers.js skips the first `past_length` ids of the next prompt, trusting that they are the
 * cached tokens. Re-rendering the chat template from decoded text does not always reproduce them
 * (a template that trims a reply, drops earlier reasoning, or leaves out the oldest turns; a
 * regenerated or edited message), so the cache is kept only up to the first token where the new
 * prompt differs: each cached position depends on the tokens before it alone, so that prefix is
 * exact, and the rest of the prompt is computed.
 */
import { DynamicCache, Tensor } from '@huggingface/transformers';

/**
 * How many of the cached tokens the prompt can keep: their longest common prefix, leaving the
 * prompt at least one token to compute (generate() needs one to give the next token's logits).
 */
export function reusablePrefix(
  cachedIds: readonly bigint[] | null,
  promptIds: readonly bigint[],
): number {
  if (!cachedIds || cachedIds.length < 2) return 0;
  const limit = Math.min(cachedIds.length - 1, promptIds.length - 1);
  let kept = 0;
  while (kept < limit && cachedIds[kept] === promptIds[kept]) kept += 1;
  return kept;
}

/**
 * Below this many kept tokens the cache is dropped rather than cropped: on WebGPU a crop reads the
 * whole cache back from the GPU, which costs more than computing a few tokens again.
 */
export const MIN_KEPT_TOKENS = 16;

interface Disposable {
  dispose?: () => unknown;
}
/** A KV cache: its tensors by name (transformers.js's DynamicCache is one). */
export type PastKeyValues = Record<string, Disposable>;

function disposeAll(past: PastKeyValues | null | undefined) {
  for (const tensor of Object.values(past ?? {})) void tensor.dispose?.();
}

/** Cuts a cache to its first `length` tokens, or gives null for a cache it cannot cut. */
export type CropCache<Past> = (past: Past, length: number) => Promise<Past | null>;

const KEY_OR_VALUE = /^past_key_values\.\d+\.(key|value)$/;

/** A cache tensor's elements: Float32Array, Float16Array (or Uint16Array where it is missing). */
interface ElementArray {
  slice(begin: number, end: number): ElementArray;
  subarray(begin: number, end: number): ElementArray;
  set(array: ElementArray, offset: number): void;
}
function isElementArray(data: unknown): data is ElementArray {
  return (
    ArrayBuffer.isView(data) &&
    !(data instanceof DataView) &&
    !(data instanceof BigInt64Array) &&
    !(data instanceof BigUint64Array)
  );
}

/** The tensor's elements, read back from the GPU first when they are there. */
function elementsOf(tensor: Tensor): Promise<unknown> {
  // `data` throws for a tensor on the GPU.
  if (tensor.location === 'gpu-buffer') return tensor.ort_tensor.getData();
  const data: unknown = tensor.data;
  return Promise.resolve(data);
}

/**
 * transformers.js's crop: every entry must be a layer's keys or values, [batch, heads, tokens,
 * head size] (a model with other state, such as a convolution's or an SSM's, cannot be cut and
 * gets null). Entries on the GPU are read back first; the cut copies are CPU tensors, which the
 * next run uploads.
 */
export const cropDynamicCache: CropCache<DynamicCache> = async (past, length) => {
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries<Tensor>(past)) {
    if (!KEY_OR_VALUE.test(name) || tensor.dims.length !== 4) return null;
    const [batch = 0, heads = 0, tokens = 0, size = 0] = tensor.dims;
    if (tokens < length) return null;
    const data = await elementsOf(tensor);
    if (!isElementArray(data)) return null;
    const rows = batch * heads;
    // The same array type, its contents overwritten below.
    const cut = data.slice(0, rows * length * size);
    for (let row = 0; row < rows; row++) {
      const from = row * tokens * size;
      cut.set(data.subarray(from, from + length * size), row * length * size);
    }
    entries[name] = new Tensor(tensor.type, cut, [batch, heads, length, size]);
  }
  return new DynamicCache(entries);
};

/** What take() gives: the cache for generate() (null for a full prefill) and its token count. */
export interface Taken<Past> {
  past: Past | null;
  tokens: number;
}

/**
 * The previous turn's cache, given to the next prompt as far as it matches it (cut at the first
 * differing token when `crop` is given, else all or nothing), and not at all for a model whose
 * export is known to mis-handle reuse (`enabled: false`). The worker and the Node tests that prove
 * reuse exact (tests/node/cache-reuse.ts) drive the same class. `Past` is the cache's type (the
 * worker's: transformers.js's DynamicCache, which generate() takes back).
 */
export class TurnCache<Past extends PastKeyValues = PastKeyValues> {
  private past: Past | null = null;
  private ids: bigint[] | null = null;
  /** How many prompts were given a cache (so a test can tell reuse really happened). */
  reused = 0;
  /** How many of those were given a cut cache. */
  cropped = 0;

  constructor(
    public enabled = true,
    private readonly crop: CropCache<Past> | null = null,
  ) {}

  /** The cache to pass to generate() for this prompt, or null for a full prefill. */
  async take(promptIds: readonly bigint[]): Promise<Taken<Past>> {
    const past = this.past;
    const cached = this.ids ? this.ids.length - 1 : 0;
    const kept = this.enabled && past ? reusablePrefix(this.ids, promptIds) : 0;
    if (past && kept > 0 && kept === cached) {
      this.reused += 1;
      return { past, tokens: kept };
    }
    const cut = past && this.crop && kept >= MIN_KEPT_TOKENS ? await this.crop(past, kept) : null;
    this.clear();
    if (!cut) return { past: null, tokens: 0 };
    // Held until keep() or clear(), so a failed generation still frees it.
    this.past = cut;
    this.reused += 1;
    this.cropped += 1;
    return { past: cut, tokens: kept };
  }

  /** After a finished turn: keep its cache (or free it when reuse is off). */
  keep(result: { past_key_values?: Past | null; sequences?: { tolist(): bigint[][] } }) {
    if (!this.enabled) {
      disposeAll(result.past_key_values);
      return;
    }
    this.past = result.past_key_values ?? null;
    this.ids = result.sequences?.tolist()[0] ?? null;
  }

  /** Drops the cache (reset, an error, another model). */
  clear() {
    disposeAll(this.past);
    this.past = null;
    this.ids = null;
  }
}
