/**
 * transformers.js as the engine and the storage code use it: its dtype strings checked, its
 * `ModelRegistry` behind model-storage.ts's Registry, the generate() output read field by field,
 * and a TextStreamer that hands generate()'s calls to the app's own token streamer.
 */
import {
  DynamicCache,
  ModelRegistry,
  Tensor,
  TextStreamer,
  type DataType,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { isObject, isUnknownArray } from '../shared/guards';
import type { Registry } from './model-storage';
import type { TokenTextStreamer } from './token-streamer';

/** transformers.js's dtypes (its DATA_TYPES, which the package does not export): all, no other. */
const DATA_TYPES: Readonly<Record<DataType, true>> = {
  auto: true,
  fp32: true,
  fp16: true,
  q8: true,
  int8: true,
  uint8: true,
  q4: true,
  bnb4: true,
  q4f16: true,
  q2: true,
  q2f16: true,
  q1: true,
  q1f16: true,
};

function isDataType(dtype: string): dtype is DataType {
  return Object.hasOwn(DATA_TYPES, dtype);
}

/** A spec's dtype as transformers.js's type; the library's own error for one it does not know. */
export function dataType(dtype: string): DataType {
  if (!isDataType(dtype))
    throw new Error(
      `Invalid dtype: ${dtype}. Should be one of: ${Object.keys(DATA_TYPES).join(', ')}`,
    );
  return dtype;
}

/** transformers.js's cache API, as model-storage.ts uses it (its dtype strings checked). */
export const registry: Registry = {
  get_files: async (modelId, options) =>
    ModelRegistry.get_files(modelId, {
      ...options,
      dtype: options?.dtype === undefined ? undefined : dataType(options.dtype),
    }),
  get_file_metadata: async (modelId, file) => ModelRegistry.get_file_metadata(modelId, file),
  clear_cache: async (modelId, options) =>
    ModelRegistry.clear_cache(modelId, {
      ...options,
      dtype: options?.dtype === undefined ? undefined : dataType(options.dtype),
    }),
};

/** The first row of a tensor of token ids (input_ids, sequences) as bigints. */
export function firstRow(tensor: Tensor): bigint[] {
  const row: unknown = tensor.tolist()[0];
  return isUnknownArray(row) ? row.filter((id) => typeof id === 'bigint') : [];
}

/**
 * What generate() returns with `return_dict_in_generate: true`: the generated sequences and the KV
 * cache. Its typings say `ModelOutput | Tensor`, so each is checked (left out when absent).
 */
export function generateOutput(result: unknown): {
  sequences?: Tensor;
  past_key_values?: DynamicCache;
} {
  if (!isObject(result)) return {};
  const { sequences, past_key_values } = result;
  return {
    ...(sequences instanceof Tensor ? { sequences } : {}),
    ...(past_key_values instanceof DynamicCache ? { past_key_values } : {}),
  };
}

/** Frees a generate() output's KV cache (one that is not kept for the next turn). */
export function disposeCacheOf(result: { past_key_values?: DynamicCache }): void {
  for (const t of Object.values(result.past_key_values ?? {})) t.dispose?.();
}

/**
 * generate() calls only its streamer's put() and end() (a BaseStreamer), but its typings ask for a
 * TextStreamer (GenerationConfig's `streamer`): this TextStreamer hands both calls to ours.
 */
export class StreamerAdapter extends TextStreamer {
  constructor(
    tokenizer: PreTrainedTokenizer,
    private readonly target: Pick<TokenTextStreamer, 'put' | 'end'>,
  ) {
    super(tokenizer);
  }
  override put(value: bigint[][]): void {
    this.target.put(value);
  }
  override end(): void {
    this.target.end();
  }
}

/** The id of a token given as text (a reasoning marker), when it is one token. */
export function tokenIdOf(
  tokenizer: PreTrainedTokenizer,
  token: string | undefined,
): bigint | undefined {
  if (!token) return undefined;
  const ids = tokenizer.encode(token, { add_special_tokens: false });
  return ids.length === 1 && ids[0] !== undefined ? BigInt(ids[0]) : undefined;
}
