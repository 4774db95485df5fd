/**
 * The worker's engine (src/worker/engine.ts) without a Worker: the tiny Llama of
 * `scripts/make-tiny-model.mjs`, served like the Hub, loaded through the real transformers.js path
 * on the CPU. Load, greedy generation (the same tokens as a plain generate()), interrupt mid-stream,
 * reset (the KV cache goes), the busy refusal, dispose, and countTokens (the template's tokens).
 * The context window: reported at load, counted as the generate path builds its prompt, and — on
 * a copy of the model whose config allows 128 positions — a conversation that grows past it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { LlmEngine, type EngineGenerationReply } from '../../src/worker/engine';
import { HostGate } from '../../src/worker/host-gate';
import { probeChatFormat, stopIds } from '../../src/worker/chat-format';
import type {
  ChatMessage,
  GenerateOptions,
  LoadResponse,
  ModelLoadSpec,
} from '../../src/shared/worker-protocol';
import { FAMILY, generateTinyModels, loadModel, serveForTransformers } from './family-models';

// Replies of this variant re-encode token for token, so a second turn really reuses the cache.
const MODEL = FAMILY.llamaBare;

/** The same model with a 128-token window (its config's max_position_embeddings). */
const SMALL_WINDOW = { id: 'local/tiny-llama-window-128', tokens: 128 };
let smallDir = '';

let hub: Awaited<ReturnType<typeof serveForTransformers>>;
let engine: LlmEngine;
let plain: { tokenizer: PreTrainedTokenizer; model: PreTrainedModel };

function spec(id: string = MODEL.id): ModelLoadSpec {
  return { id, dtype: 'fp32', shaderF16: false, host: hub.server.url };
}

/** One generation: every reply, the text streamed, and how it ended. */
async function generate(
  messages: ChatMessage[],
  options: GenerateOptions,
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

/** The conversation after `reply`, with the user's next message. */
function nextTurn(messages: ChatMessage[], reply: string, next = 'More.'): ChatMessage[] {
  return [...messages, { role: 'assistant', content: reply }, { role: 'user', content: next }];
}

beforeAll(async () => {
  generateTinyModels();
  smallDir = mkdtempSync(join(tmpdir(), 'tiny-window-'));
  cpSync(MODEL.dir, smallDir, { recursive: true });
  const configFile = join(smallDir, 'config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(
    configFile,
    JSON.stringify({ ...config, max_position_embeddings: SMALL_WINDOW.tokens }),
  );
  hub = await serveForTransformers({ [MODEL.id]: MODEL.dir, [SMALL_WINDOW.id]: smallDir });
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
  if (smallDir) rmSync(smallDir, { recursive: true, force: true });
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
      data: { id: MODEL.id, dtype: 'fp32', contextWindow: { tokens: 4096, source: 'config' } },
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
    const second = nextTurn(first, turn1.text);
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

  it('Regenerate: the same prompt again is given the cache cut before the reply, and the same reply', async () => {
    engine.reset();
    const messages: ChatMessage[] = [{ role: 'user', content: 'Write about music.' }];
    const first = await generate(messages, { maxNewTokens: 10 });
    const [reused, cropped] = [engine.reusedTurns, engine.croppedTurns];
    const again = await generate(messages, { maxNewTokens: 10 });
    expect([engine.reusedTurns, engine.croppedTurns]).toEqual([reused + 1, cropped + 1]);
    const stats = again.complete?.status === 'complete' ? again.complete.stats : undefined;
    // All of the prompt but its last token came from the cache.
    expect(stats?.cachedTokens).toBe((stats?.promptTokens ?? 0) - 1);
    expect(again.text).toBe(first.text);
  }, 60_000);

  it('a stopped reply keeps its cache: the next turn is given it as far as it matches', async () => {
    engine.reset();
    const first: ChatMessage[] = [{ role: 'user', content: 'Write about music.' }];
    let updates = 0;
    const stopped = await generate(
      first,
      { maxNewTokens: 40 },
      { onUpdate: () => (++updates === 2 ? engine.interrupt() : undefined) },
    );
    expect(stopped.complete).toMatchObject({ interrupted: true });
    const second = nextTurn(first, stopped.text);
    const reused = engine.reusedTurns;
    const next = await generate(second, { maxNewTokens: 10 });
    expect(engine.reusedTurns).toBe(reused + 1);
    engine.reset();
    const fresh = await generate(second, { maxNewTokens: 10 });
    expect(next.text).toBe(fresh.text);
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

  it('countUsage counts what the generate path sends: the conversation with the draft', async () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Write about music.' },
      { role: 'assistant', content: 'The music is loud.' },
    ];
    const draft = 'And about water?';
    const options = { maxNewTokens: 2, systemPrompt: 'Be brief.' };
    const usage = engine.countUsage(history, draft, options);
    const { complete } = await generate([...history, { role: 'user', content: draft }], options, {
      useCache: false,
    });
    expect(complete?.status === 'complete' && complete.stats?.promptTokens).toBe(usage.tokens);
    expect(usage.draftTokens).toBe(
      engine.countTokens([{ role: 'user', content: draft }], { systemPrompt: 'Be brief.' }),
    );
    expect(usage.draftTokens).toBeLessThan(usage.tokens);
  }, 60_000);

  it('dispose frees the model: generation and counting are refused after', async () => {
    await engine.dispose();
    const { error } = await generate([{ role: 'user', content: 'Hi' }], { maxNewTokens: 4 });
    expect(error).toEqual({ status: 'error', data: 'No model is loaded.', phase: 'generate' });
    expect(() => engine.countTokens([{ role: 'user', content: 'Hi' }])).toThrow(
      'No model is loaded.',
    );
  });
});

describe('LlmEngine past the context window (tiny Llama with 128 positions)', () => {
  const NEW_TOKENS = 16;

  it('reports the window; a conversation grows past it: the oldest turns go, replies keep coming, no stale cache', async () => {
    const loads: LoadResponse[] = [];
    await engine.load(spec(SMALL_WINDOW.id), (m) => {
      if (m.status !== 'reference') loads.push(m);
    });
    expect(loads.at(-1)).toMatchObject({
      status: 'ready',
      data: { contextWindow: { tokens: 128, source: 'config' } },
    });
    const messages: ChatMessage[] = [];
    const omittedByTurn: number[] = [];
    for (let turn = 0; turn < 8; turn++) {
      messages.push({ role: 'user', content: `Tell me about music and water, part ${turn}.` });
      const reusedBefore = engine.reusedTurns;
      const croppedBefore = engine.croppedTurns;
      const { replies, text, complete } = await generate(messages, { maxNewTokens: NEW_TOKENS });
      const start = replies[0];
      const omitted = start?.status === 'start' ? (start.omitted ?? 0) : -1;
      expect(complete?.status).toBe('complete');
      expect(text.length).toBeGreaterThan(0);
      const promptTokens =
        complete?.status === 'complete' ? (complete.stats?.promptTokens ?? 0) : 0;
      // What was sent and its reply fit the window; what was left out is whole turns.
      expect(promptTokens + NEW_TOKENS).toBeLessThanOrEqual(SMALL_WINDOW.tokens);
      expect(messages[omitted]?.role).toBe('user');
      // A prompt whose start moved is never given the whole cache: at most the part before the
      // first message that changed (the template's system header), cut.
      if (omitted !== (omittedByTurn.at(-1) ?? 0))
        expect(engine.reusedTurns - reusedBefore).toBe(engine.croppedTurns - croppedBefore);
      omittedByTurn.push(omitted);
      messages.push({ role: 'assistant', content: text });
    }
    expect(omittedByTurn[0]).toBe(0);
    expect(omittedByTurn.at(-1)).toBeGreaterThan(0);
    // The truncated turn gives the reply a fresh prefill of the same prompt gives.
    const last = messages.slice(0, -1);
    engine.reset();
    const fresh = await generate(last, { maxNewTokens: NEW_TOKENS });
    expect(fresh.text).toBe(messages.at(-1)?.content);
  }, 120_000);

  it('refusal instead: the counts are named, nothing starts', async () => {
    const messages: ChatMessage[] = [];
    for (let i = 0; i < 6; i++)
      messages.push(
        { role: 'user', content: `Tell me about music and water, part ${i}.` },
        { role: 'assistant', content: 'The music is loud and the water is cold today.' },
      );
    messages.push({ role: 'user', content: 'More.' });
    const tokens = engine.countTokens(messages);
    const { replies, error } = await generate(messages, {
      maxNewTokens: NEW_TOKENS,
      whenTooLong: 'refuse',
    });
    expect(replies).toHaveLength(1);
    expect(error).toEqual({
      status: 'error',
      phase: 'generate',
      tooLong: 'conversation',
      data: `The conversation is ${tokens} tokens; with Max new tokens (${NEW_TOKENS}) that is more than the model's window of 128 tokens. Start a new conversation, lower Max new tokens, or allow earlier messages to be left out.`,
    });
  });

  it('a message longer than the window, or Max new tokens past it, is refused before it starts', async () => {
    const long: ChatMessage[] = [{ role: 'user', content: 'music water '.repeat(80) }];
    const tooLong = await generate(long, { maxNewTokens: NEW_TOKENS });
    expect(tooLong.replies).toHaveLength(1);
    expect(tooLong.error).toMatchObject({ tooLong: 'message' });
    expect(tooLong.error?.status === 'error' && tooLong.error.data).toContain(
      `This message is ${engine.countTokens(long)} tokens as the model sees it`,
    );
    const greedy = await generate([{ role: 'user', content: 'Hi' }], { maxNewTokens: 200 });
    expect(greedy.error).toMatchObject({ tooLong: 'max-new-tokens' });
    expect(greedy.error?.status === 'error' && greedy.error.data).toBe(
      "Max new tokens (200) leaves no room in the model's window of 128 tokens: lower it below 128.",
    );
  });
});
