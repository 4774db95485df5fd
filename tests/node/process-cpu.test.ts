import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendantCpuSeconds } from '../bench/process-cpu';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('descendantCpuSeconds (the speed bench CPU figure)', () => {
  it('counts the CPU a grandchild burns while it runs, and drops it once the tree is gone', async () => {
    const before = descendantCpuSeconds();
    expect(before).not.toBeNull();
    // A shell (child) waiting on a busy loop in node (grandchild) that runs until killed.
    const child = spawn('sh', ['-c', 'node -e "for(;;){}" & wait'], { detached: true });
    await sleep(1500);
    const during = descendantCpuSeconds() ?? NaN;
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    await new Promise((r) => child.on('exit', r));
    // Over 1.5 s the loop has had most of a core (less on a busy machine, but not nothing).
    expect(during - (before ?? 0)).toBeGreaterThan(0.3);
    expect(during - (before ?? 0)).toBeLessThan(3);
    await sleep(100);
    expect(descendantCpuSeconds() ?? NaN).toBeLessThan(during);
  });
});
