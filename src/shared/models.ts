import type { TrainedModel } from './training-api';
import type { GenerationSettings } from './generation-settings';
import { needsShaderF16 } from './storage';

/**
 * The four in-browser models (PRODUCT.md §6): ONNX community models, with their Hub ids and
 * dtypes. `fallback` is what loads when the GPU adapter lacks the `shader-f16` feature.
 */
export interface ModelOption {
  /** Stable key used by the dropdown and persisted choices. */
  value: string;
  label: string;
  id: string;
  dtype: string;
  fallback?: { id: string; dtype: string };
  thinkTokens?: { open: string; close: string };
  /** Weights stored as external data next to the .onnx file (large models). */
  externalData?: boolean;
  /**
   * Recommended generation settings, applied to a new conversation with this model (a user's own
   * choice wins). Settings the model's generation_config.json recommends are added at load.
   */
  recommended?: Partial<GenerationSettings>;
  /**
   * false: never reuse the previous turn's KV cache (an export known to mis-handle it). Default on:
   * reuse is only taken when the new prompt provably starts with the cached tokens (kv-cache.ts).
   */
  reuseCache?: boolean;
  /** Where its files are (Hub layout), when not the app's model host: a training service. */
  host?: string;
  /** The Hub id of the original model, to fine-tune from (the training panel suggests it). */
  source?: string;
  /**
   * Exported by the trainer, whose `export.json` (read from `host` only) carries a reference the
   * worker replays after the load: "Checked on this GPU" (src/shared/reference-check.ts).
   */
  trainerReference?: boolean;
  /**
   * A context window lower than the config's `max_position_embeddings` (tokens), where the export
   * or the app cannot use the model's full length (src/shared/context-window.ts).
   */
  contextLimit?: number;
}

export const MODELS: readonly ModelOption[] = [
  {
    value: 'llama-3.2-1b',
    label: 'Llama 3.2 1B Instruct (q4f16)',
    id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4' },
    source: 'meta-llama/Llama-3.2-1B-Instruct',
    // onnx/model_q4f16.onnx is one file (no external data); the fallback is the q4 repo. The
    // template takes a system message and ends an assistant turn with <|eot_id|> (also in the
    // generation config's eos). At run time the app checks the files exist, takes their sizes
    // from their metadata and the end-of-turn token from the template. Cache reuse: on (plain
    // per-layer past_key_values; reuse only where the prompt provably starts with the cache).
  },
  {
    value: 'phi-3.5-mini',
    label: 'Phi 3.5 mini instruct (web)',
    id: 'onnx-community/Phi-3.5-mini-instruct-onnx-web',
    dtype: 'q4f16',
    externalData: true,
    source: 'microsoft/Phi-3.5-mini-instruct',
    // onnx/ holds only model_q4f16.onnx with its external data, so it needs shader-f16 (no
    // fallback). The template takes a system message and ends an assistant turn with <|end|>,
    // found from the template and added to the stop ids. Cache reuse: on, prefix-checked.
  },
  {
    value: 'deepseek-r1-1.5b',
    label: 'DeepSeek R1 Distill Qwen 1.5B',
    id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX', dtype: 'q4' },
    thinkTokens: { open: '<think>', close: '</think>' },
    source: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
    // The model card: temperature 0.5-0.7 (0.6) to avoid endless repetition, no system prompt; the
    // reasoning needs room, so 2,048 new tokens.
    recommended: { temperature: 0.6, topP: 0.95, maxNewTokens: 2048, systemPrompt: '' },
    // q4f16 and q4 are in the same repo. generation_config.json: two eos ids and do_sample false
    // (greedy unless told otherwise, hence the card's recommendation above). The template puts a
    // system message before the first turn, opens <think> itself and ends an assistant turn with
    // <｜end▁of▁sentence｜> (the generation config's eos). Cache reuse: on; the template drops
    // earlier reasoning, so the prompt rarely starts with the cache and reuse is then skipped (a
    // full prefill), never wrong.
  },
  {
    value: 'gemma-2-2b-jpn',
    label: 'gemma 2 2b jpn',
    id: 'onnx-community/gemma-2-2b-jpn-it',
    dtype: 'q4f16',
    // Offered only where the host has its files (the plan checks before a load).
    fallback: { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4' },
    source: 'google/gemma-2-2b-jpn-it',
    // generation_config.json names only <eos>, not <end_of_turn>, which the template gives. The
    // template raises 'System role not supported' (the system prompt goes at the start of the
    // first user message, found by rendering it). A q4 variant may be absent: it is offered only
    // where its files exist (the run-time check). Cache reuse: on, prefix-checked (the tests'
    // gemma-like model reuses it exactly).
  },
];

/** Labels of the models that can run without shader-f16 (their own dtype or their fallback). */
export function modelsWithoutF16(models: readonly ModelOption[] = MODELS): string[] {
  return models
    .filter((m) => !needsShaderF16(m.dtype) || (m.fallback && !needsShaderF16(m.fallback.dtype)))
    .map((m) => m.label);
}

/**
 * One sentence for a variant whose files the host lacks: what is missing and, when it was the
 * fallback for a GPU without shader-f16, what the GPU lacks and which models run here.
 */
export function missingVariantMessage(input: {
  label: string;
  id: string;
  dtype: string;
  missing: readonly string[];
  /** The variant is the f16-free fallback (the GPU lacks shader-f16). */
  isFallback: boolean;
  runsWithoutF16: readonly string[];
}): string {
  const files = input.missing.join(', ');
  const others = input.runsWithoutF16.filter((l) => l !== input.label);
  if (input.isFallback)
    return `This GPU lacks the shader-f16 feature ${input.label} needs, and ${input.id} has no ${input.dtype} variant (${files} not found)${others.length ? `; models that run here: ${others.join(', ')}.` : '.'}`;
  return `${input.id} has no ${input.dtype} variant: ${files} not found.`;
}

/** Default model host: the Hugging Face Hub. */
export const DEFAULT_MODEL_HOST = 'https://huggingface.co/';

/** What the training panel's Base model field suggests: the in-browser models' originals. */
export function baseModelSuggestions(models: readonly ModelOption[] = MODELS) {
  return models.flatMap((m) => (m.source ? [{ id: m.source, label: m.label }] : []));
}

/**
 * A model trained by the local training service (GET /models) as a picker entry, served by that
 * service (`host`), named after its output folder. The variant is the best its files and the GPU
 * allow: q4f16 (needs shader-f16), else q4, else fp32 (resolveVariant falls back when the GPU
 * lacks shader-f16).
 */
export function trainedModelOption(model: TrainedModel, serviceUrl: string): ModelOption {
  const has = (dtype: string) => model.variants.some((v) => v === dtype);
  const plain = ['q4', 'fp32', 'q8', 'int8', 'uint8', 'bnb4'].find(has);
  const preferred = has('q4f16') ? 'q4f16' : (plain ?? model.variants[0] ?? 'fp32');
  const fallback = preferred === 'q4f16' && plain ? { id: model.id, dtype: plain } : undefined;
  return {
    value: model.id,
    label: `${model.name} (${model.role === 'base' ? 'base, exported' : 'fine-tuned'})`,
    id: model.id,
    dtype: preferred,
    ...(fallback ? { fallback } : {}),
    host: `${serviceUrl.replace(/\/+$/, '')}/`,
    source: model.base_model,
    trainerReference: true,
  };
}
