/** Unit tests: metric-line parsing, the bounded metrics store, pid + start-time identity. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MetricsStore, parseMetricLine } from '../src/metrics';
import { ProcessTree, readStat } from '../src/proc-tree';
import { alive, sleep, tempDir } from './helpers';

describe('parseMetricLine', () => {
  it('reads the Hugging Face Trainer log dict', () => {
    expect(
      parseMetricLine(
        "{'loss': 1.2345, 'grad_norm': 0.81, 'learning_rate': 0.0002, 'epoch': 0.25}",
      ),
    ).toEqual({ loss: 1.2345, grad_norm: 0.81, learning_rate: 0.0002, epoch: 0.25, step: null });
    expect(parseMetricLine("  {'loss': 2.0, 'learning_rate': 1.9e-05, 'epoch': 1}  ")).toEqual({
      loss: 2,
      grad_norm: null,
      learning_rate: 1.9e-5,
      epoch: 1,
      step: null,
    });
  });

  it('reads JSON lines with the same keys, and their step', () => {
    expect(
      parseMetricLine('{"loss": 0.5, "learning_rate": 0.0001, "epoch": 0.5, "step": 40}'),
    ).toEqual({ loss: 0.5, learning_rate: 0.0001, epoch: 0.5, grad_norm: null, step: 40 });
  });

  it.each([
    ["{'loss': oops, 'epoch': 0.1}", 'a value that is not a number'],
    ["{'eval_loss': 1.5, 'epoch': 0.4}", 'an eval dict'],
    ["{'train_runtime': 1.0, 'train_loss': 0.9, 'epoch': 1.0}", 'the final summary'],
    ["{'loss': nan, 'epoch': 0.1}", 'a NaN loss'],
    ['{"loss": "1.2"}', 'a string loss'],
    ['{"loss": 1.2', 'unterminated JSON'],
    ["step 3/10 {'loss': 1.2}", 'a dict inside other text'],
    ["{'loss': 1.2, 'x': __import__('os')}", 'code'],
    ['[1, 2, 3]', 'an array'],
    ['', 'an empty line'],
  ])('ignores %s (%s)', (line) => {
    expect(parseMetricLine(line)).toBeNull();
  });
});

describe('MetricsStore', () => {
  const dir = tempDir('metrics-');
  const point = { loss: 1, learning_rate: null, epoch: null, grad_norm: null, step: null };

  it('keeps at most its capacity, thinning evenly, always returning the latest point', async () => {
    const store = new MetricsStore(join(dir, 'm.jsonl'), 1000);
    for (let i = 0; i < 100_000; i++) store.add({ ...point, loss: i }, i + 1, i / 10);
    expect(store.seen).toBe(100_000);
    expect(store.size).toBeLessThanOrEqual(1000);
    expect(store.stride).toBe(128);
    const all = store.since();
    expect(all.points[0]?.seq).toBe(0);
    expect(all.points.at(-1)).toMatchObject({ seq: 99_999, step: 100_000, loss: 99_999 });
    const seqs = all.points.map((p) => p.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(store.since(99_998).points.map((p) => p.seq)).toEqual([99_999]);
    await store.close();
  });

  it('every point goes to its file; a reload rebuilds the same view', async () => {
    const file = join(dir, 'n.jsonl');
    const store = new MetricsStore(file, 8);
    store.openForWriting();
    for (let i = 0; i < 20; i++) store.add({ ...point, loss: i }, i, i);
    await store.close();
    const loaded = await MetricsStore.load(file, 8);
    expect(loaded.since()).toEqual(store.since());
  });
});

describe('ProcessTree: a pid is signalled only while its start time matches', () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: 'ignore',
  });
  afterAll(() => child.kill('SIGKILL'));

  it('a recorded pid whose start time differs (a reused pid) is left alone', async () => {
    const pid = child.pid ?? 0;
    for (let i = 0; i < 100 && !readStat(pid); i++) await sleep(10);
    const stat = readStat(pid);
    expect(stat).not.toBeNull();
    const reused = new ProcessTree('unit-run', null, [{ pid, start: (stat?.start ?? 0) - 1 }]);
    expect(reused.alive()).toEqual([]);
    expect(reused.signal('SIGKILL')).toBe(0);
    await sleep(50);
    expect(alive(pid)).toBe(true);
    const same = new ProcessTree('unit-run', null, [{ pid, start: stat?.start ?? 0 }]);
    expect(same.alive()).toEqual([{ pid, start: stat?.start }]);
    expect(same.signal('SIGKILL')).toBe(1);
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(10);
    expect(alive(pid)).toBe(false);
  });
});
