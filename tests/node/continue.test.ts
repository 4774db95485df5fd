/**
 * Continue (GenerateOptions.continue) with a real tokenizer and model, driven the way the worker
 * drives it: a greedy reply cut at 4 tokens and continued for 4 more is the 8-token reply, with and
 * without the cut reply's KV cache (reused only where it provably covers the prompt).
 */
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { continuationPrompt, probeChatFormat, stopIds } from '../../src/worker/chat-format';
import { generateTurn as generate, workerCache, type PromptInputs as Inputs } from './cache-reuse';
import { FAMILY, generateTinyModels, loadModel, serveForTransformers } from './family-models';

async function cutAndContinue(
  model: PreTrainedModel,
  tokenizer: PreTrainedTokenizer,
  modelId: string,
  reuse: boolean,
) {
  const format = probeChatFormat(tokenizer, modelId);
  const config = (model as unknown as { generation_config?: { eos_token_id?: unknown } })
    .generation_config;
  const stop = stopIds(config?.eos_token_id, format);
  const messages = [{ role: 'user', content: 'Write about music.' }];
  const prompt = () =>
    tokenizer.apply_chat_template(messages, {
      add_generation_prompt: true,
      return_dict: true,
    }) as unknown as Inputs;
  const decode = (ids: number[]) => tokenizer.decode(ids, { skip_special_tokens: true });
  const whole = decode(await generate(model, prompt(), workerCache(false), 8, stop));
  const cache = workerCache(reuse);
  const first = decode(await generate(model, prompt(), cache, 4, stop));
  const open = continuationPrompt(tokenizer, [...messages, { role: 'assistant', content: first }]);
  const inputs = tokenizer(open, { add_special_tokens: false }) as unknown as Inputs;
  const rest = decode(await generate(model, inputs, cache, 4, stop));
  cache.clear();
  return { whole, first, continued: first + rest, reused: cache.reused };
}

let hub: Awaited<ReturnType<typeof serveForTransformers>>;

beforeAll(async () => {
  generateTinyModels();
  hub = await serveForTransformers({ [FAMILY.gemma.id]: FAMILY.gemma.dir });
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe('Continue a reply cut at Max new tokens', () => {
  it('4 + 4 continued tokens are the 8-token reply, with and without the cut reply’s cache', async () => {
    const { tokenizer, model } = await loadModel(FAMILY.gemma.id);
    try {
      const withCache = await cutAndContinue(model, tokenizer, FAMILY.gemma.id, true);
      const without = await cutAndContinue(model, tokenizer, FAMILY.gemma.id, false);
      expect(withCache.first.length).toBeGreaterThan(0);
      expect(withCache.continued).toBe(withCache.whole);
      expect(without.continued).toBe(withCache.whole);
      expect(without.reused).toBe(0);
      // The continuation prompt re-encodes the cut reply token for token: its cache is used.
      expect(withCache.reused).toBe(1);
    } finally {
      await model.dispose();
    }
  }, 60_000);
});
