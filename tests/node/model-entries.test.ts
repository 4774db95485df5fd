/**
 * The app's models as a user meets them, at the level of the machines and the model entries:
 * sizes from the files (none hand-written), a fallback offered only where its files exist, and
 * per-model recommended settings applied to a new conversation (a user's own choice wins).
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { modelMachine } from '../../src/machines/modelMachine';
import {
  selectCanLoad,
  selectMissingVariant,
  selectSizes,
} from '../../src/machines/modelSelectors';
import { chatMachine } from '../../src/machines/chatMachine';
import { capOf, selectSettings } from '../../src/machines/chatSelectors';
import { fakeWorker } from '../../src/machines/test-helpers';
import { MODELS, missingVariantMessage, modelsWithoutF16 } from '../../src/shared/models';
import {
  defaultSettings,
  recommendedFromGenerationConfig,
  settingsFor,
} from '../../src/shared/generation-settings';
import { describeRecommended } from '../../src/shared/recommended-settings';
import type { DownloadPlan } from '../../src/shared/storage';

const planEvent = (partial: Partial<DownloadPlan> & { id: string; dtype: string }) => {
  const plan: DownloadPlan = { totalBytes: 0, largestFile: null, warnings: [], ...partial };
  return { type: 'worker.plan', message: { status: 'plan', plan } } as const;
};

describe('model entries', () => {
  it('carry no hand-written sizes (the plan reads them from the files)', () => {
    for (const m of MODELS) expect(m).not.toHaveProperty('size');
  });

  it('DeepSeek R1 recommends temperature 0.6, top p 0.95, 2,048 new tokens and no system prompt', () => {
    const r1 = MODELS.find((m) => m.value === 'deepseek-r1-1.5b');
    expect(r1?.recommended).toEqual({
      temperature: 0.6,
      topP: 0.95,
      maxNewTokens: 2048,
      systemPrompt: '',
    });
    expect(describeRecommended(r1?.recommended ?? {})).toBe(
      'temperature 0.6, top p 0.95, 2,048 new tokens, no system prompt',
    );
  });

  it('the models that run without shader-f16 are those with an f16-free variant', () => {
    expect(modelsWithoutF16()).toEqual([
      'Llama 3.2 1B Instruct (q4f16)',
      'DeepSeek R1 Distill Qwen 1.5B',
      'gemma 2 2b jpn',
    ]);
  });
});

describe('a fallback is offered only where its files exist', () => {
  it('gemma without shader-f16 and no q4 files: Load disabled, one sentence says why', () => {
    const worker = fakeWorker();
    const actor = createActor(modelMachine, {
      input: { worker, models: MODELS, shaderF16: false },
    }).start();
    actor.send({ type: 'model.select', value: 'gemma-2-2b-jpn' });
    expect(worker.posted.at(-1)).toEqual({
      type: 'plan',
      data: { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4', host: undefined },
    });
    actor.send(
      planEvent({
        id: 'onnx-community/gemma-2-2b-jpn-it',
        dtype: 'q4',
        missing: ['onnx/model_q4.onnx'],
      }),
    );
    expect(selectCanLoad(actor.getSnapshot())).toBe(false);
    expect(selectMissingVariant(actor.getSnapshot())).toBe(
      'This GPU lacks the shader-f16 feature gemma 2 2b jpn needs, and onnx-community/gemma-2-2b-jpn-it has no q4 variant (onnx/model_q4.onnx not found); models that run here: Llama 3.2 1B Instruct (q4f16), DeepSeek R1 Distill Qwen 1.5B.',
    );
    // Its size is not shown for a variant that cannot load.
    expect(selectSizes(actor.getSnapshot())).toEqual({});
  });

  it('a variant that exists: Load enabled, the dropdown learns its size from the plan', () => {
    const worker = fakeWorker();
    const actor = createActor(modelMachine, {
      input: { worker, models: MODELS, shaderF16: false },
    }).start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send(
      planEvent({ id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4', totalBytes: 1_660 }),
    );
    expect(selectCanLoad(actor.getSnapshot())).toBe(true);
    expect(selectMissingVariant(actor.getSnapshot())).toBeNull();
    // The fallback's size is what shows, since that is what will load.
    expect(selectSizes(actor.getSnapshot())).toEqual({ 'llama-3.2-1b': 1_660 });
  });

  it('the load spec carries the entry label, recommendations, cache switch and the f16-free models', () => {
    const worker = fakeWorker();
    const actor = createActor(modelMachine, {
      input: { worker, models: MODELS, shaderF16: true },
    }).start();
    actor.send({ type: 'model.select', value: 'deepseek-r1-1.5b' });
    actor.send({ type: 'model.load' });
    const load = worker.posted.find((r) => r.type === 'load');
    expect(load).toMatchObject({
      data: {
        label: 'DeepSeek R1 Distill Qwen 1.5B',
        recommended: { temperature: 0.6 },
        runsWithoutF16: modelsWithoutF16(),
      },
    });
  });

  it('the sentence for a chosen variant that is missing (GPU fine)', () => {
    expect(
      missingVariantMessage({
        label: 'x',
        id: 'a/b',
        dtype: 'q4f16',
        missing: ['onnx/model_q4f16.onnx'],
        isFallback: false,
        runsWithoutF16: [],
      }),
    ).toBe('a/b has no q4f16 variant: onnx/model_q4f16.onnx not found.');
  });
});

describe('recommended settings', () => {
  const r1Ready = {
    type: 'worker.ready',
    message: {
      status: 'ready',
      data: {
        id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX',
        dtype: 'q4f16',
        recommended: { temperature: 0.6, topP: 0.95, maxNewTokens: 2048, systemPrompt: '' },
      },
    },
  } as const;

  it('from generation_config.json: sampling only when it samples by default', () => {
    expect(
      recommendedFromGenerationConfig({ do_sample: true, temperature: 0.6, top_p: 0.95 }),
    ).toEqual({ temperature: 0.6, topP: 0.95 });
    expect(recommendedFromGenerationConfig({ temperature: 0.6, top_p: 0.95 })).toEqual({});
    expect(recommendedFromGenerationConfig({ do_sample: true, temperature: 9 })).toEqual({});
    expect(recommendedFromGenerationConfig(null)).toEqual({});
  });

  it('a new conversation with R1 starts with them; the default cap is lifted to 2,048', () => {
    const actor = createActor(chatMachine, { input: { worker: fakeWorker() } }).start();
    actor.send(r1Ready);
    expect(selectSettings(actor.getSnapshot())).toEqual({
      ...defaultSettings(),
      temperature: 0.6,
      topP: 0.95,
      maxNewTokens: 2048,
    });
    expect(capOf(actor.getSnapshot().context)).toBe(2048);
    // New chat (from the conversations list) after changes: the recommendations again.
    actor.send({ type: 'chat.settings', patch: { temperature: 1.2 } });
    actor.send({ type: 'chat.load', messages: [], settings: defaultSettings(), fresh: true });
    expect(selectSettings(actor.getSnapshot()).temperature).toBe(0.6);
  });

  it("a user's own choice wins: settings changed before the model is ready stay", () => {
    const actor = createActor(chatMachine, { input: { worker: fakeWorker() } }).start();
    actor.send({ type: 'chat.settings', patch: { temperature: 0.2 } });
    actor.send(r1Ready);
    expect(selectSettings(actor.getSnapshot()).temperature).toBe(0.2);
  });

  it('a saved conversation keeps its own settings', () => {
    const actor = createActor(chatMachine, { input: { worker: fakeWorker() } }).start();
    const saved = { ...defaultSettings(), temperature: 0 };
    actor.send({ type: 'chat.load', messages: [{ role: 'user', content: 'hi' }], settings: saved });
    actor.send(r1Ready);
    expect(selectSettings(actor.getSnapshot())).toEqual(saved);
  });

  it('an explicit ?maxTokens= cap is not lifted', () => {
    const actor = createActor(chatMachine, {
      input: { worker: fakeWorker(), maxNewTokens: 64 },
    }).start();
    actor.send(r1Ready);
    expect(selectSettings(actor.getSnapshot()).maxNewTokens).toBe(64);
    expect(settingsFor({ maxNewTokens: 2048 }, 64).maxNewTokens).toBe(64);
  });
});
