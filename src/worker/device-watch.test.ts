import { describe, expect, it } from 'vitest';
import { askedOnce } from './device-watch';

describe('askedOnce', () => {
  it('asks once and keeps an answer', async () => {
    let asked = 0;
    const facts = askedOnce(() => Promise.resolve({ n: ++asked }));
    expect(await facts()).toEqual({ n: 1 });
    expect(await facts()).toEqual({ n: 1 });
    expect(asked).toBe(1);
  });
  it('asks again after "nothing found" (null) or a failure', async () => {
    const answers: (() => Promise<string | null>)[] = [
      () => Promise.resolve(null),
      () => Promise.reject(new Error('no GPU process')),
      () => Promise.resolve('adapter'),
      () => Promise.resolve('another'),
    ];
    let asked = 0;
    const facts = askedOnce(() => answers[asked++]?.() ?? Promise.resolve(null));
    expect(await facts()).toBeNull();
    await expect(facts()).rejects.toThrow('no GPU process');
    expect(await facts()).toBe('adapter');
    expect(await facts()).toBe('adapter');
    expect(asked).toBe(3);
  });
});
