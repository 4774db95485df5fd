import { vi } from 'vitest';

/**
 * Animation frames run by hand (tests only): stubs requestAnimationFrame and cancelAnimationFrame
 * until `vi.unstubAllGlobals()`; `flush` runs the frames queued so far.
 */
export function manualFrames() {
  const queue = new Map<number, FrameRequestCallback>();
  let id = 0;
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => {
    queue.set(++id, cb);
    return id;
  });
  vi.stubGlobal('cancelAnimationFrame', (handle: number) => queue.delete(handle));
  return {
    get pending() {
      return queue.size;
    },
    flush() {
      const callbacks = [...queue.values()];
      queue.clear();
      for (const cb of callbacks) cb(performance.now());
    },
  };
}
