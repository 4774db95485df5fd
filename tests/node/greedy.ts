/**
 * Greedy generation as the export tests compare it with PyTorch's: a chat prompt built by the
 * model's template (with the generation prompt), then exactly `newTokens` tokens (min_new_tokens
 * keeps an end-of-turn token from ending it early).
 */
import type {
  DynamicCache,
  PreTrainedModel,
  PreTrainedTokenizer,
  Tensor,
} from '@huggingface/transformers';

/** The first row of a [1, n] id tensor, as numbers. */
function ids(t: Tensor): number[] {
  return ((t.tolist() as bigint[][])[0] ?? []).map(Number);
}

export interface Greedy {
  /** The prompt's token ids, as the template built them. */
  promptIds: number[];
  /** The new token ids. */
  generated: number[];
  /** What transformers.js fed back as the past; the caller disposes it. */
  cache: DynamicCache;
}

export async function generateGreedy(
  lm: PreTrainedModel,
  tokenizer: PreTrainedTokenizer,
  messages: { role: string; content: string }[],
  newTokens: number,
): Promise<Greedy> {
  const inputs = tokenizer.apply_chat_template(messages, {
    add_generation_prompt: true,
    return_dict: true,
  }) as { input_ids: Tensor; attention_mask: Tensor };
  const out = (await lm.generate({
    ...inputs,
    max_new_tokens: newTokens,
    min_new_tokens: newTokens,
    do_sample: false,
    return_dict_in_generate: true,
  })) as { sequences: Tensor; past_key_values: DynamicCache };
  const promptIds = ids(inputs.input_ids);
  return {
    promptIds,
    generated: ids(out.sequences).slice(promptIds.length),
    cache: out.past_key_values,
  };
}
