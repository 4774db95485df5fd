/**
 * The KV cache holds every token of the conversation so far except the last generated one.
 * transformers.js skips the first `past_length` ids of the next prompt, trusting that they are the
 * cached tokens; re-rendering the chat template from decoded text does not always reproduce them,
 * so the worker checks the prefix and drops the cache (a full recompute) when it differs.
 */
export function cacheCoversPrompt(
  cachedIds: readonly bigint[] | null,
  promptIds: readonly bigint[],
): boolean {
  if (!cachedIds || cachedIds.length < 2) return false;
  const pastLength = cachedIds.length - 1;
  if (promptIds.length <= pastLength) return false;
  for (let i = 0; i < pastLength; i++) {
    if (cachedIds[i] !== promptIds[i]) return false;
  }
  return true;
}

interface Disposable {
  dispose?: () => void;
}
/** A KV cache: its tensors by name (transformers.js's DynamicCache is one). */
export type PastKeyValues = Record<string, Disposable>;

function disposeAll(past: PastKeyValues | null | undefined) {
  for (const tensor of Object.values(past ?? {})) tensor.dispose?.();
}

/**
 * The previous turn's cache, reused for the next prompt only when it provably covers it, and not at
 * all for a model whose export is known to mis-handle reuse (`enabled: false`). The worker and the
 * Node test that proves reuse exact (tests/node/cache-reuse.ts) drive the same class. `Past` is
 * the cache's type (the worker's: transformers.js's DynamicCache, which generate() takes back).
 */
export class TurnCache<Past extends PastKeyValues = PastKeyValues> {
  private past: Past | null = null;
  private ids: bigint[] | null = null;
  /** How many prompts were given a cache (so a test can tell reuse really happened). */
  reused = 0;

  constructor(public enabled = true) {}

  /** The cache to pass to generate() for this prompt, or null for a full prefill. */
  take(promptIds: readonly bigint[]): Past | null {
    if (!this.enabled || !cacheCoversPrompt(this.ids, promptIds)) this.clear();
    if (this.past) this.reused += 1;
    return this.past;
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

  /** Drops the cache (reset, an interrupted turn, an error, another model). */
  clear() {
    disposeAll(this.past);
    this.past = null;
    this.ids = null;
  }
}
