/**
 * The chat template quirks of the real families, on tiny models whose templates behave like them
 * (scripts/make-tiny-model.mjs), through the real transformers.js tokenizer and model:
 * a template that rejects a system role (gemma 2), an end-of-turn token the generation config does
 * not name (gemma-2-2b-jpn-it), a <think> template (DeepSeek R1), no template, a broken template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import {
  ChatTemplateError,
  probeChatFormat,
  stopIds,
  withSystemPrompt,
} from '../../src/worker/chat-format';
import { FAMILY, generateTinyModels, loadModel, serveForTransformers } from './family-models';

let hub: Awaited<ReturnType<typeof serveForTransformers>>;
const loaded: Record<string, { tokenizer: PreTrainedTokenizer; model: PreTrainedModel }> = {};

beforeAll(async () => {
  generateTinyModels();
  hub = await serveForTransformers(
    Object.fromEntries(Object.values(FAMILY).map((f) => [f.id, f.dir])),
  );
  for (const f of [FAMILY.llama, FAMILY.gemma, FAMILY.r1]) loaded[f.id] = await loadModel(f.id);
}, 60_000);

afterAll(async () => {
  for (const { model } of Object.values(loaded)) await model.dispose();
  await hub?.close();
});

const get = (id: string) => {
  const m = loaded[id];
  if (!m) throw new Error(`${id} not loaded`);
  return m;
};
const idOf = (tokenizer: PreTrainedTokenizer, token: string) =>
  tokenizer.encode(token, { add_special_tokens: false });

function generationEos(model: PreTrainedModel): unknown {
  return (model as unknown as { generation_config?: { eos_token_id?: unknown } }).generation_config
    ?.eos_token_id;
}

async function reply(id: string, systemPrompt: string | undefined, eos: number[], max = 40) {
  const { tokenizer, model } = get(id);
  const format = probeChatFormat(tokenizer, id);
  const conversation = withSystemPrompt(
    [{ role: 'user', content: 'Tell me about music.' }],
    systemPrompt,
    format,
  );
  const prompt = tokenizer.apply_chat_template(conversation, {
    tokenize: false,
    add_generation_prompt: true,
  });
  const inputs = tokenizer.apply_chat_template(conversation, {
    add_generation_prompt: true,
    return_dict: true,
  }) as unknown as { input_ids: Tensor };
  const promptLength = inputs.input_ids.dims[1] ?? 0;
  const out = (await model.generate({
    ...inputs,
    do_sample: false,
    max_new_tokens: max,
    eos_token_id: eos,
  })) as Tensor;
  const ids = ((out.tolist() as bigint[][])[0] ?? []).map(Number).slice(promptLength);
  return { prompt, ids, text: tokenizer.decode(ids, { skip_special_tokens: true }) };
}

describe('the template decides, per tokenizer', () => {
  it('Llama-like: takes a system message; a turn ends with <|eot_id|>', () => {
    const { tokenizer } = get(FAMILY.llama.id);
    expect(probeChatFormat(tokenizer, FAMILY.llama.id)).toEqual({
      systemRole: true,
      endOfTurnIds: idOf(tokenizer, '<|eot_id|>'),
    });
  });

  it('gemma-like: no system role (its own error is caught); a turn ends with <end_of_turn>', () => {
    const { tokenizer } = get(FAMILY.gemma.id);
    // The template itself raises, as gemma 2's does.
    expect(() =>
      tokenizer.apply_chat_template(
        [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        { tokenize: false },
      ),
    ).toThrow('System role not supported');
    expect(probeChatFormat(tokenizer, FAMILY.gemma.id)).toEqual({
      systemRole: false,
      endOfTurnIds: idOf(tokenizer, '<end_of_turn>'),
    });
  });

  it('R1-like: takes a system message (before the first turn); a turn ends with its eos', () => {
    const { tokenizer } = get(FAMILY.r1.id);
    expect(probeChatFormat(tokenizer, FAMILY.r1.id)).toEqual({
      systemRole: true,
      endOfTurnIds: idOf(tokenizer, '<｜end▁of▁sentence｜>'),
    });
  });
});

describe('a system prompt reaches the model, whatever the template', () => {
  it('gemma-like: at the start of the first user message, and no error', async () => {
    const { prompt, ids } = await reply(FAMILY.gemma.id, 'Answer in one word.', []);
    expect(prompt).toContain('<start_of_turn>user\nAnswer in one word.\n\nTell me about music.');
    expect(prompt).not.toContain('<start_of_turn>system');
    expect(ids.length).toBeGreaterThan(0);
  });

  it('Llama-like: as a system message', async () => {
    const { prompt } = await reply(FAMILY.llama.id, 'Answer in one word.', [], 2);
    expect(prompt).toContain('<|start_header_id|>system<|end_header_id|>\n\nAnswer in one word.');
  });
});

describe('a reply ends at the end of the turn', () => {
  it('gemma-like: the generation config names only <eos>, so <end_of_turn> comes from the template', async () => {
    const { tokenizer, model } = get(FAMILY.gemma.id);
    const eot = idOf(tokenizer, '<end_of_turn>')[0];
    const config = generationEos(model);
    expect(config).toEqual(idOf(tokenizer, '<eos>'));
    const stop = stopIds(config, probeChatFormat(tokenizer, FAMILY.gemma.id));
    expect(stop).toEqual([...idOf(tokenizer, '<eos>'), eot]);

    const ended = await reply(FAMILY.gemma.id, undefined, stop);
    expect(ended.ids.at(-1)).toBe(eot);
    expect(ended.ids.length).toBeLessThan(40);
    expect(ended.text).not.toMatch(/<end_of_turn>|<start_of_turn>/);
    // Regression: with the generation config's ids alone the reply ran on into invented turns
    // (the special tokens hidden) up to the token limit.
    const ranOn = await reply(
      FAMILY.gemma.id,
      undefined,
      stop.filter((id) => id !== eot),
    );
    expect(ranOn.ids.length).toBe(40);
    expect(ranOn.ids).toContain(eot);
  });
});

describe('templates that cannot chat fail with a message naming the template', () => {
  it('no chat template at all', async () => {
    const { tokenizer } = await loadTokenizer(FAMILY.noTemplate.id);
    expect(() => probeChatFormat(tokenizer, FAMILY.noTemplate.id)).toThrow(ChatTemplateError);
    expect(() => probeChatFormat(tokenizer, FAMILY.noTemplate.id)).toThrow(
      'local/tiny-no-template has no chat template (its tokenizer_config.json sets no chat_template), so it cannot be used for chat.',
    );
  });

  it('a template that raises for another reason', async () => {
    const { tokenizer } = await loadTokenizer(FAMILY.badTemplate.id);
    expect(() => probeChatFormat(tokenizer, FAMILY.badTemplate.id)).toThrow(
      'The chat template of local/tiny-bad-template fails on a plain user message: This template only renders tool calls',
    );
  });
});

async function loadTokenizer(id: string) {
  const { AutoTokenizer } = await import('@huggingface/transformers');
  return { tokenizer: await AutoTokenizer.from_pretrained(id) };
}
