import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterNextFrame } from './frames';
import { manualFrames } from './test-frames';

/** Lets queued tasks (a MessageChannel's message among them) run. */
const tasks = () => new Promise((resolve) => setTimeout(resolve, 10));

afterEach(() => vi.unstubAllGlobals());

describe('afterNextFrame', () => {
  it('runs the task after the next frame, in a task of its own (not in the frame callback)', async () => {
    const frames = manualFrames();
    const task = vi.fn();
    afterNextFrame(task);
    await tasks();
    expect(task).not.toHaveBeenCalled(); // no frame yet
    frames.flush();
    expect(task).not.toHaveBeenCalled(); // not inside the frame's callback
    await tasks();
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('cancelled before the frame or between the frame and its task, the task never runs', async () => {
    const frames = manualFrames();
    const early = vi.fn();
    const late = vi.fn();
    const cancelEarly = afterNextFrame(early);
    const cancelLate = afterNextFrame(late);
    cancelEarly();
    frames.flush();
    cancelLate();
    await tasks();
    frames.flush();
    await tasks();
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });
});
