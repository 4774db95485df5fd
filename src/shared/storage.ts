/**
 * Stored models and download plans: the shapes the worker reports and the fit rules, pure.
 */
import { formatBytes } from './format-bytes';

/** A model with files in transformers.js's browser cache. */
export interface StoredModel {
  id: string;
  /** Bytes of the cached files (what the browser really stores). */
  bytes: number;
  files: number;
  /** Model hosts the files were downloaded from (the Hub, or a loopback mirror). */
  hosts: string[];
}

/** Storage used and available for this site (`navigator.storage.estimate()`). */
export interface StorageEstimate {
  usage: number | null;
  quota: number | null;
}

export interface FitWarning {
  kind: 'buffer' | 'quota' | 'shader-f16';
  message: string;
}

/** A model's download size before downloading, and why it may not fit. */
export interface DownloadPlan {
  id: string;
  dtype: string;
  totalBytes: number;
  largestFile: { file: string; size: number } | null;
  warnings: FitWarning[];
  /** Files of this variant the host does not have (then it cannot load). */
  missing?: string[] | undefined;
  /** Answered from the sizes stored by an earlier plan (offline). */
  stored?: boolean | undefined;
}

/** Weight files: ONNX graphs and their external data. */
export function isWeightFile(file: string): boolean {
  return /\.onnx(_data(_\d+)?)?$/.test(file);
}

/** Whether a dtype needs `shader-f16` (fp16 activations). */
export function needsShaderF16(dtype: string): boolean {
  return dtype === 'fp16' || dtype === 'q4f16';
}

export function fitWarnings(input: {
  dtype: string;
  totalBytes: number;
  largest: { file: string; size: number } | null;
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number; shaderF16: boolean } | null;
  freeBytes: number | null;
}): FitWarning[] {
  const warnings: FitWarning[] = [];
  const { largest, limits } = input;
  if (largest && limits) {
    const limit = Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize);
    const name =
      limits.maxBufferSize <= limits.maxStorageBufferBindingSize
        ? 'maxBufferSize'
        : 'maxStorageBufferBindingSize';
    if (largest.size > limit)
      warnings.push({
        kind: 'buffer',
        message: `${largest.file} is ${formatBytes(largest.size)}, above this GPU's ${name} of ${formatBytes(limit)}: it will probably fail to load.`,
      });
  }
  if (input.freeBytes !== null && input.totalBytes > input.freeBytes)
    warnings.push({
      kind: 'quota',
      message: `The download (${formatBytes(input.totalBytes)}) is larger than the free browser storage (${formatBytes(Math.max(0, input.freeBytes))}): delete stored models first.`,
    });
  if (limits && !limits.shaderF16 && needsShaderF16(input.dtype))
    warnings.push({
      kind: 'shader-f16',
      message: `This is an ${input.dtype} model and this GPU lacks the shader-f16 feature.`,
    });
  return warnings;
}
