/**
 * Frame timing for the renderer's long work (AssistantMarkdown.tsx, and the render harness that
 * measures it): its slices each in a task of its own right after a frame. (Streamed updates are
 * coalesced to one per animation frame before they reach React, by the worker actor.)
 */
/** Runs `callback` at the next animation frame (a 16 ms timer where there are none). */
function nextFrame(callback: () => void): number {
  return typeof requestAnimationFrame === 'function'
    ? requestAnimationFrame(() => callback())
    : window.setTimeout(callback, 16);
}

function cancelFrame(handle: number): void {
  if (typeof cancelAnimationFrame === 'function') cancelAnimationFrame(handle);
  else window.clearTimeout(handle);
}

/** Runs `task` in a task of its own (a MessageChannel message); returns a cancel function. */
export function inOwnTask(task: () => void): () => void {
  const channel = new MessageChannel();
  let live = true;
  const stop = () => {
    live = false;
    channel.port1.close();
  };
  channel.port1.onmessage = () => {
    const run = live;
    stop();
    if (run) task();
  };
  channel.port2.postMessage(null);
  return stop;
}

/**
 * Runs `task` in a task of its own just after the next frame is drawn; returns a cancel function.
 * Not in the frame's own callback: a slice's script and layout and the frame's paint of what the
 * last slice changed are then two tasks, not one (a long paragraph's repaint is itself a long
 * part of a frame), and input is handled between them.
 */
export function afterNextFrame(task: () => void): () => void {
  let cancelTask = () => {};
  const handle = nextFrame(() => {
    cancelTask = inOwnTask(task);
  });
  return () => {
    cancelFrame(handle);
    cancelTask();
  };
}
