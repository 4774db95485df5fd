import type { TrainedModel } from './training-api';

/**
 * The in-browser models ): four ONNX community models, with their real hub ids
 * and dtypes. `fallback` is what loads when the GPU adapter lacks the `shader-f16` feature.
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
  /** Approximate download size, shown next to the label. */
  size?: string;
  /** Where its files are (Hub layout), when not the app's model host: a training service. */
  host?: string;
  /** The Hub id of the original model, to fine-tune from (the training panel suggests it). */
  source?: string;
}

export const MODELS: readonly ModelOption[] = [
  {
    value: 'llama-3.2-1b',
    label: 'Llama 3.2 1B Instruct (q4f16)',
    id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4' },
    size: '1.0 GB',
    source: 'meta-llama/Llama-3.2-1B-Instruct',
  },
  {
    value: 'phi-3.5-mini',
    label: 'Phi 3.5 mini instruct (web)',
    id: 'onnx-community/Phi-3.5-mini-instruct-onnx-web',
    dtype: 'q4f16',
    externalData: true,
    size: '2.1 GB',
    source: 'microsoft/Phi-3.5-mini-instruct',
  },
  {
    value: 'deepseek-r1-1.5b',
    label: 'DeepSeek R1 Distill Qwen 1.5B',
    id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX', dtype: 'q4' },
    thinkTokens: { open: '<think>', close: '</think>' },
    size: '1.3 GB',
    source: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
  },
  {
    value: 'gemma-2-2b-jpn',
    label: 'gemma 2 2b jpn',
    id: 'onnx-community/gemma-2-2b-jpn-it',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4' },
    size: '1.5 GB',
    source: 'google/gemma-2-2b-jpn-it',
  },
];

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
    label: `${model.name} (fine-tuned)`,
    id: model.id,
    dtype: preferred,
    ...(fallback ? { fallback } : {}),
    host: `${serviceUrl.replace(/\/+$/, '')}/`,
    source: model.base_model,
  };
}
