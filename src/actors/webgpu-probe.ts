import { fromPromise } from 'xstate';
import type { GpuInfo } from '../machines/appMachine';
import { errorMessage } from '../shared/errors';
import { isObject } from '../shared/guards';

/** Minimal structural types so this file does not depend on @webgpu/types. */
interface GpuAdapterLike {
  features: { has(name: string): boolean };
  info?: { vendor?: string; architecture?: string; description?: string };
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

function isGpuLike(value: unknown): value is GpuLike {
  return isObject(value) && typeof value.requestAdapter === 'function';
}

/** Probes `navigator.gpu` and an adapter; records whether it offers `shader-f16`. */
export async function probeWebGPU(nav: object = navigator): Promise<GpuInfo> {
  const gpu = 'gpu' in nav ? nav.gpu : undefined;
  if (!isGpuLike(gpu))
    return { supported: false, shaderF16: false, reason: 'navigator.gpu is missing' };
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    return { supported: false, shaderF16: false, reason: errorMessage(error) };
  }
  if (!adapter) return { supported: false, shaderF16: false, reason: 'no WebGPU adapter' };
  const info = adapter.info;
  const description = [info?.vendor, info?.architecture, info?.description]
    .filter(Boolean)
    .join(' ');
  return {
    supported: true,
    shaderF16: adapter.features.has('shader-f16'),
    adapter: description || undefined,
  };
}

export const probeWebGPUActor = fromPromise<GpuInfo>(() => probeWebGPU());
