/** The GPUDevice ONNX Runtime runs on, watched: a lost device ends the worker's usefulness. */
import { isObject } from '../shared/guards';

interface GpuDeviceLike {
  lost: Promise<{ reason: string; message: string }>;
  destroy(): void;
}

/** ONNX Runtime types its device `unknown` without @webgpu/types: checked for what is used. */
function isGpuDeviceLike(value: unknown): value is GpuDeviceLike {
  return (
    isObject(value) &&
    isObject(value.lost) &&
    typeof value.lost.then === 'function' &&
    typeof value.destroy === 'function'
  );
}

/**
 * `watch` after a model is created (ONNX Runtime's device, from `device()`), `release` before the
 * model is freed: releasing the last session may destroy the device, which is then expected.
 * `onLost` hears any other loss, with a detail for the fault message.
 */
export function createDeviceWatch(device: () => unknown, onLost: (detail: string) => void) {
  let watched: GpuDeviceLike | null = null;
  const released = new WeakSet<GpuDeviceLike>();
  return {
    async watch(): Promise<void> {
      const current: unknown = await device();
      if (!isGpuDeviceLike(current) || current === watched) return;
      const watching = current;
      watched = watching;
      void watching.lost.then((info) => {
        if (released.has(watching)) return;
        onLost(info.message || `the device was ${info.reason || 'lost'}`);
      });
    },
    release(): void {
      if (watched) released.add(watched);
      watched = null;
    },
    /** Tests only (`debug.loseDevice`): destroys the watched device. */
    destroy(): void {
      watched?.destroy();
    },
  };
}

/**
 * `read` asked once and its answer kept — unless it found nothing (null) or failed: then the next
 * call asks again (the worker's GPU adapter facts: an adapter can be back after a GPU reset).
 */
export function askedOnce<T>(read: () => Promise<T | null>): () => Promise<T | null> {
  let kept: Promise<T | null> | undefined;
  return () => {
    const asked = (kept ??= read());
    const forget = () => {
      if (kept === asked) kept = undefined;
    };
    asked.then((found) => (found === null ? forget() : undefined), forget);
    return asked;
  };
}
