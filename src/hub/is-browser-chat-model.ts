import type { ModelRecord } from './types';

export type BrowserChatCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether a hub model can be loaded in this app's chat: a transformers.js-compatible ONNX
 * text-generation model (library or tag `transformers.js`, and ONNX weights: the `onnx` tag or an
 * `.onnx` file). The reason says what is missing otherwise.
 */
export function isBrowserChatModel(params: { record: ModelRecord }): BrowserChatCheck {
  const { record } = params;
  if (record.pipeline_tag !== 'text-generation') {
    return { ok: false, reason: 'Only text-generation models can be loaded in the chat.' };
  }
  const transformersJs =
    record.library_name === 'transformers.js' || record.tags.includes('transformers.js');
  if (!transformersJs) {
    return { ok: false, reason: 'The model is not marked as compatible with transformers.js.' };
  }
  const onnx =
    record.tags.includes('onnx') ||
    (record.siblings ?? []).some((file) => file.rfilename.endsWith('.onnx'));
  if (!onnx) return { ok: false, reason: 'The model has no ONNX weights.' };
  return { ok: true };
}
