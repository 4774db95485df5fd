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
}

export const MODELS: readonly ModelOption[] = [
  {
    value: 'llama-3.2-1b',
    label: 'Llama 3.2 1B Instruct (q4f16)',
    id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4' },
    size: '1.0 GB',
  },
  {
    value: 'phi-3.5-mini',
    label: 'Phi 3.5 mini instruct (web)',
    id: 'onnx-community/Phi-3.5-mini-instruct-onnx-web',
    dtype: 'q4f16',
    externalData: true,
    size: '2.1 GB',
  },
  {
    value: 'deepseek-r1-1.5b',
    label: 'DeepSeek R1 Distill Qwen 1.5B',
    id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX', dtype: 'q4' },
    thinkTokens: { open: '<think>', close: '</think>' },
    size: '1.3 GB',
  },
  {
    value: 'gemma-2-2b-jpn',
    label: 'gemma 2 2b jpn',
    id: 'onnx-community/gemma-2-2b-jpn-it',
    dtype: 'q4f16',
    fallback: { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4' },
    size: '1.5 GB',
  },
];

/** Default model host: the Hugging Face Hub. */
export const DEFAULT_MODEL_HOST = 'https://huggingface.co/';
