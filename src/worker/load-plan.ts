import type { ModelLoadSpec } from '../shared/worker-protocol';
import { errorMessage } from '../shared/errors';
import { DEFAULT_MODEL_HOST } from '../shared/models';

/** Message when a model needs fp16 shaders and has no fallback. */
export const NO_F16_MESSAGE =
  "This model needs the WebGPU 'shader-f16' feature, which this GPU adapter does not provide, and it has no fp32 variant.";

/**
 * Picks the repo and dtype to load: the preferred one, or — when the adapter lacks shader-f16 and
 * the dtype uses fp16 — the fallback, or an error that says why.
 */
export function resolveVariant(
  spec: ModelLoadSpec,
): { id: string; dtype: string } | { error: string } {
  const needsF16 = /f16/.test(spec.dtype);
  if (!needsF16 || spec.shaderF16) return { id: spec.id, dtype: spec.dtype };
  if (spec.fallback) return spec.fallback;
  return { error: NO_F16_MESSAGE };
}

/**
 * Why a variant other than the chosen one is loading, or null when it is the chosen one, e.g.
 * "No shader-f16 on this GPU, so the q4 variant (onnx-community/X) was tried".
 */
export function fallbackReason(
  spec: ModelLoadSpec,
  variant: { id: string; dtype: string },
): string | null {
  if (variant.id === spec.id && variant.dtype === spec.dtype) return null;
  return `No shader-f16 on this GPU, so the ${variant.dtype} variant (${variant.id}) was tried`;
}

// Messages describeLoadError already produced: describing them again would repeat the prefix.
const DESCRIBED =
  /^(Out of memory while loading the model|A model file could not be downloaded|The model file is corrupt|Network error while downloading the model|Could not load the tokenizer of)/;

/**
 * Turns whatever a failed load threw into a message a person can act on (idempotent). `host`: the
 * model host; when it is not the Hub (a training service, a `?modelHost=` mirror) a network error
 * names it, since "are you offline?" misleads when that server has stopped.
 */
export function describeLoadError(error: unknown, host?: string): string {
  const raw = errorMessage(error);
  if (DESCRIBED.test(raw)) return raw;
  if (
    /out of memory|OOM|allocation failed|Failed to allocate|RangeError: Array buffer allocation/i.test(
      raw,
    )
  ) {
    return `Out of memory while loading the model: ${raw}`;
  }
  if (/could not locate file|404|Not Found/i.test(raw)) {
    return `A model file could not be downloaded: ${raw}`;
  }
  if (/protobuf|invalid model|parse|Load model from .* failed|Can't create a session/i.test(raw)) {
    return `The model file is corrupt or not a valid ONNX model: ${raw}`;
  }
  if (/Failed to fetch|NetworkError|network/i.test(raw)) {
    return host && host !== DEFAULT_MODEL_HOST
      ? `Network error while downloading the model from ${host} (is that server still running?): ${raw}`
      : `Network error while downloading the model (are you offline?): ${raw}`;
  }
  return raw || 'Unknown error';
}
