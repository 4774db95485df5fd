/**
 * Drives a multi-turn chat the way the worker does (src/worker/llm.worker.ts): the template's
 * format found by probeChatFormat, the system prompt placed by withSystemPrompt, the stop ids, and
 * the previous turn's KV cache through the same TurnCache, greedy. Used to prove that reuse changes
 * no token, for the tiny family models and for any exported model folder.
 */
import type {
  DynamicCache,
  PreTrainedModel,
  PreTrainedTokenizer,
  Tensor,
} from '@huggingface/transformers';
import { probeChatFormat, stopIds, withSystemPrompt } from '../../src/worker/chat-format';
import { TurnCache, cropDynamicCache } from '../../src/worker/kv-cache';

export interface Conversation {
  /** New token ids of every turn, in order. */
  replies: number[][];
  /** The reply texts as the chat keeps them (the answer only, reasoning left out). */
  texts: string[];
  /** How many turns were given the previous turn's cache. */
  reused: number;
  /** How many of those were given it cut where the prompt differs. */
  cropped: number;
}

/** A cache as the worker keeps it: cut where the next prompt differs (reuse on or off). */
export function workerCache(reuse: boolean): TurnCache<DynamicCache> {
  return new TurnCache<DynamicCache>(reuse, cropDynamicCache);
}

/** The prompt's tensors, as the template (or the tokenizer) gives them. */
export type PromptInputs = { input_ids: Tensor; attention_mask: Tensor };

/**
 * One greedy turn from `inputs` up to `maxNewTokens`, the cache given as far as it matches the
 * prompt (TurnCache) and kept for the next turn; returns the new token ids.
 */
export async function generateTurn(
  model: PreTrainedModel,
  inputs: PromptInputs,
  cache: TurnCache<DynamicCache>,
  maxNewTokens: number,
  stop: number[],
): Promise<number[]> {
  const promptIds = (inputs.input_ids.tolist() as bigint[][])[0] ?? [];
  const result = (await model.generate({
    ...inputs,
    past_key_values: (await cache.take(promptIds)).past,
    do_sample: false,
    max_new_tokens: maxNewTokens,
    eos_token_id: stop,
    return_dict_in_generate: true,
  })) as {
    sequences: Tensor;
    past_key_values: DynamicCache;
  };
  cache.keep(result);
  const all = ((result.sequences.tolist() as bigint[][])[0] ?? []).map(Number);
  return all.slice(promptIds.length);
}

export async function runConversation(
  model: PreTrainedModel,
  tokenizer: PreTrainedTokenizer,
  options: {
    modelId: string;
    turns: readonly string[];
    reuse: boolean;
    maxNewTokens?: number;
    systemPrompt?: string;
    thinkClose?: string;
  },
): Promise<Conversation> {
  const format = probeChatFormat(tokenizer, options.modelId);
  const generationConfig = (model as unknown as { generation_config?: { eos_token_id?: unknown } })
    .generation_config;
  const stop = stopIds(generationConfig?.eos_token_id, format);
  const closeIds = options.thinkClose
    ? tokenizer.encode(options.thinkClose, { add_special_tokens: false })
    : [];
  const closeId = closeIds.length === 1 ? closeIds[0] : undefined;
  const cache = workerCache(options.reuse);
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  const replies: number[][] = [];
  const texts: string[] = [];
  for (const turn of options.turns) {
    messages.push({ role: 'user', content: turn });
    const inputs = tokenizer.apply_chat_template(
      withSystemPrompt(messages, options.systemPrompt, format),
      { add_generation_prompt: true, return_dict: true },
    ) as unknown as PromptInputs;
    const reply = await generateTurn(model, inputs, cache, options.maxNewTokens ?? 12, stop);
    replies.push(reply);
    const at = closeId === undefined ? -1 : reply.lastIndexOf(closeId);
    const answer = at >= 0 ? reply.slice(at + 1) : reply;
    const text = tokenizer.decode(answer, { skip_special_tokens: true });
    texts.push(text);
    messages.push({ role: 'assistant', content: text });
  }
  cache.clear();
  return { replies, texts, reused: cache.reused, cropped: cache.cropped };
}

/** The same conversation with and without cache reuse: both runs' tokens, and the reuse count. */
export async function compareCacheReuse(
  model: PreTrainedModel,
  tokenizer: PreTrainedTokenizer,
  options: Omit<Parameters<typeof runConversation>[2], 'reuse'>,
) {
  const withReuse = await runConversation(model, tokenizer, { ...options, reuse: true });
  const without = await runConversation(model, tokenizer, { ...options, reuse: false });
  return { withReuse, without };
}
