/**
 * The worker's engine (src/worker/engine.ts) without a Worker: the tiny Llama of
 * `scripts/make-tiny-model.mjs`, served like the Hub, loaded through the real transformers.js path
 * on the CPU. Load, greedy generation (the same tokens as a plain generate()), interrupt mid-stream,
 * reset (the KV cache goes), the busy refusal, dispose, and countTokens (the template's tokens).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { LlmEngine, type EngineGenerationReply } from '../../src/worker/engine';
import { HostGate } from '../../src/worker/host-gate';
import { probeChatFormat, stopIds } from '../../src/worker/chat-format';
import type { ChatMessage, LoadResponse, ModelLoadSpec } from '../../src/shared/worker-protocol';
import { FAMILY, generateTinyModels, loadModel, serveForTransformers } from './family-models';

// Replies of this variant re-encode token for token, so a second turn really reuses the cache.
const MODEL = FAMILY.llamaBare;

let hub: Awaited<ReturnType<typeof serveForTransformers>>;
let engine: LlmEngine;
let plain: { tokenizer: PreTrainedTokenizer; model: PreTrainedModel };

function spec(): ModelLoadSpec {
  return { id: MODEL.id, dtype: 'fp32', shaderF16: false, host: hub.server.url };
}

/** One generation: every reply, the text streamed, and how it ended. */
async function generate(
  messages: ChatMessage[],
  options: { maxNewTokens: number; systemPrompt?: string },
  { useCache = true, onUpdate }: { useCache?: boolean; onUpdate?: () => void } = {},
) {
  const replies: EngineGenerationReply[] = [];
  await engine.generate({ messages, options, useCache }, (reply) => {
    replies.push(reply);
    if (reply.status === 'update') onUpdate?.();
  });
  const text = replies.map((r) => (r.status === 'update' ? r.output : '')).join('');
  const complete = replies.find((r) => r.status === 'complete');
  const error = replies.find((r) => r.status === 'error');
  return { replies, text, complete, error };
}

beforeAll(async () => {
  generateTinyModels();
  hub = await serveForTransformers({ [MODEL.id]: MODEL.dir });
  engine = new LlmEngine({
    device: 'cpu',
    hosts: new HostGate((host) => (env.remoteHost = host)),
    reference: { fetch: (url, init) => fetch(url, init) },
  });
  plain = await loadModel(MODEL.id);
}, 120_000);

afterAll(async () => {
  await engine?.dispose();
  await plain?.model.dispose();
  await hub?.close();
});

describe('LlmEngine in Node (tiny Llama, CPU)', () => {
  it('loads: loading, then ready with the variant; nothing is loaded before', async () => {
    expect(() => engine.countTokens([{ role: 'user', content: 'Hi' }])).toThrow(
      'No model is loaded.',
    );
    const messages: LoadResponse[] = [];
    const { replay } = await engine.load(spec(), (m) => {
      if (m.status !== 'reference') messages.push(m);
    });
    expect(replay).toBeNull();
    expect(messages[0]).toEqual({ status: 'loading', data: 'Loading model...' });
    expect(messages.at(-1)).toMatchObject({
      status: 'ready',
      data: { id: MODEL.id, dtype: 'fp32' },
    });
  }, 60_000);

  it('generates greedily: the same tokens as a plain transformers.js generate()', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Write about music.' }];
    const { text, complete, replies } = await generate(
      messages,
      { maxNewTokens: 12 },
      { useCache: false },
    );
    const { tokenizer, model } = plain;
    const format = probeChatFormat(tokenizer, MODEL.id);
    const inputs = tokenizer.apply_chat_template(messages, {
      add_generation_prompt: true,
      return_dict: true,
    });
    const promptLength = inputs.input_ids.dims[1] ?? 0;
    const output = await model.generate({
      ...inputs,
      do_sample: false,
      max_new_tokens: 12,
      eos_token_id: stopIds(model.generation_config?.eos_token_id, format),
    });
    const row = ((output as { tolist(): bigint[][] }).tolist()[0] ?? []).slice(promptLength);
    expect(replies[0]).toEqual({ status: 'start' });
    expect(complete).toMatchObject({ numTokens: row.length, interrupted: false });
    expect(text).toBe(tokenizer.decode(row, { skip_special_tokens: true }));
    expect(text.length).toBeGreaterThan(0);
  }, 60_000);

  it('interrupt mid-stream: the reply completes as stopped, short of its limit', async () => {
    const { complete } = await generate(
      [{ role: 'user', content: 'Write about music.' }],
      { maxNewTokens: 40 },
      { onUpdate: () => engine.interrupt() },
    );
    expect(complete).toMatchObject({ status: 'complete', interrupted: true, finish: 'stopped' });
    expect(complete?.status === 'complete' && complete.numTokens).toBeLessThan(40);
  }, 60_000);

  it('reuses the KV cache on the next turn; reset drops it and the reply is the same', async () => {
    const first: ChatMessage[] = [{ role: 'user', content: 'Write about music.' }];
    const turn1 = await generate(first, { maxNewTokens: 10 });
    const second: ChatMessage[] = [
      ...first,
      { role: 'assistant', content: turn1.text },
      { role: 'user', content: 'More.' },
    ];
    const before = engine.reusedTurns;
    const reused = await generate(second, { maxNewTokens: 10 });
    expect(engine.reusedTurns).toBe(before + 1);
    engine.reset();
    await generate(first, { maxNewTokens: 10 });
    engine.reset();
    const afterReset = engine.reusedTurns;
    const recomputed = await generate(second, { maxNewTokens: 10 });
    expect(engine.reusedTurns).toBe(afterReset);
    expect(recomputed.text).toBe(reused.text);
  }, 60_000);

  it('one generation at a time: a second while one runs is refused', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Write about music.' }];
    const [, second] = await Promise.all([
      generate(messages, { maxNewTokens: 8 }, { useCache: false }),
      generate(messages, { maxNewTokens: 8 }, { useCache: false }),
    ]);
    expect(second.error).toEqual({
      status: 'error',
      data: 'The model is busy with another reply; try again when it is done.',
      phase: 'generate',
    });
  }, 60_000);

  it('countTokens is the chat template rendered and tokenized by the model', () => {
    const { tokenizer } = plain;
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Write about music.' },
      { role: 'assistant', content: 'music music' },
      { role: 'user', content: 'More, please.' },
    ];
    const rendered = (conversation: { role: string; content: string }[]) =>
      tokenizer.apply_chat_template(conversation, {
        add_generation_prompt: true,
        tokenize: true,
        return_tensor: false,
        return_dict: false,
      }).length;
    expect(engine.countTokens(messages)).toBe(rendered(messages));
    const system = 'Answer in one line.';
    const withSystem = engine.countTokens(messages, { systemPrompt: system });
    expect(withSystem).toBe(rendered([{ role: 'system', content: system }, ...messages]));
    expect(withSystem).toBeGreaterThan(engine.countTokens(messages));
  });

  it('dispose frees the model: generation and counting are refused after', async () => {
    await engine.dispose();
    const { error } = await generate([{ role: 'user', content: 'Hi' }], { maxNewTokens: 4 });
    expect(error).toEqual({ status: 'error', data: 'No model is loaded.', phase: 'generate' });
    expect(() => engine.countTokens([{ role: 'user', content: 'Hi' }])).toThrow(
      'No model is loaded.',
    );
  });
});
