import { describe, expect, it } from 'vitest';
import { HostGate } from './host-gate';

/** A promise and its resolve, to hold work open until the test says. */
function latch() {
  let open = () => {};
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

describe('HostGate', () => {
  // A plan for a Hub model set the global host while a trained model's load was fetching files:
  // the load's next request named the trained model on huggingface.co.
  it('work for another host waits; every request of running work sees its own host', async () => {
    let current = '';
    const gate = new HostGate((host) => (current = host));
    const seen: string[] = [];
    const service = latch();
    const load = gate.run('http://127.0.0.1:8000/', async () => {
      seen.push(`load:${current}`);
      await service.done;
      seen.push(`load:${current}`);
    });
    const plan = gate.run('https://huggingface.co/', async () => {
      seen.push(`plan:${current}`);
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['load:http://127.0.0.1:8000/']);
    service.open();
    await Promise.all([load, plan]);
    expect(seen).toEqual([
      'load:http://127.0.0.1:8000/',
      'load:http://127.0.0.1:8000/',
      'plan:https://huggingface.co/',
    ]);
  });

  it('work for the same host runs at once, side by side', async () => {
    const gate = new HostGate(() => {});
    const first = latch();
    const order: string[] = [];
    const a = gate.run('http://127.0.0.1:9/', async () => {
      await first.done;
      order.push('a');
    });
    await gate.run('http://127.0.0.1:9/', async () => void order.push('b'));
    first.open();
    await a;
    expect(order).toEqual(['b', 'a']);
  });

  it('a failure frees the host for the next', async () => {
    const gate = new HostGate(() => {});
    await expect(
      gate.run('http://a/', async () => {
        throw new Error('offline');
      }),
    ).rejects.toThrow('offline');
    await expect(gate.run('http://b/', async () => 'ok')).resolves.toBe('ok');
  });
});
