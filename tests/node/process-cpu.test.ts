import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendantCpuSeconds, threadCpuSeconds } from '../bench/process-cpu';

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

describe('threadCpuSeconds (the speed bench by thread)', () => {
  it('puts a busy thread of a child under its process type and its own thread name', async () => {
    // A child (its "--type=probe" read from its command line, as Chromium's are) whose busy loop
    // runs in a worker thread that names itself "spinner"; its main thread ("node") only waits.
    const spin =
      "require('node:fs').writeFileSync('/proc/thread-self/comm', 'spinner'); for (;;) {}";
    const script =
      "const { Worker } = require('node:worker_threads');" +
      `new Worker(${JSON.stringify(spin)}, { eval: true }); setInterval(() => {}, 1000);`;
    const child = spawn('node', ['-e', script, '--', '--type=probe'], { detached: true });
    await sleep(1500);
    const threads = threadCpuSeconds();
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    await new Promise((r) => child.on('exit', r));
    expect(threads).not.toBeNull();
    const spinner = threads?.get('probe/spinner') ?? 0;
    // Most of a core for about a second, kept apart from the process's other threads.
    expect(spinner).toBeGreaterThan(0.3);
    expect(threads?.get('probe/node') ?? 0).toBeLessThan(spinner);
  });
});
