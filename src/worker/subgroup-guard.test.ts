import { describe, expect, it } from 'vitest';
import { guardedDescriptor, installSubgroupGuard, MIN_SUBGROUP_SIZE } from './subgroup-guard';

const features = ['timestamp-query', 'subgroups', 'subgroup-size-control', 'shader-f16'];

describe('guardedDescriptor', () => {
  it('drops the subgroup features on an adapter whose subgroups are smaller than 8', () => {
    expect(
      guardedDescriptor({ info: { subgroupMinSize: 4 } }, { requiredFeatures: features }),
    ).toEqual({ requiredFeatures: ['timestamp-query', 'shader-f16'] });
  });

  it('keeps them from 8 on, and when the adapter does not say', () => {
    for (const info of [{ subgroupMinSize: MIN_SUBGROUP_SIZE }, { subgroupMinSize: 32 }, {}])
      expect(guardedDescriptor({ info }, { requiredFeatures: features })).toEqual({
        requiredFeatures: features,
      });
    expect(guardedDescriptor({ info: { subgroupMinSize: 4 } }, undefined)).toBeUndefined();
  });
});

describe('installSubgroupGuard', () => {
  it('wraps requestDevice once, passing the guarded descriptor', async () => {
    const seen: unknown[] = [];
    class FakeAdapter {
      constructor(readonly info: { subgroupMinSize: number }) {}
      requestDevice(descriptor?: unknown) {
        seen.push(descriptor);
        return Promise.resolve('device');
      }
    }
    const scope = { GPUAdapter: FakeAdapter };
    installSubgroupGuard(scope);
    installSubgroupGuard(scope);
    await new FakeAdapter({ subgroupMinSize: 4 }).requestDevice({ requiredFeatures: features });
    await new FakeAdapter({ subgroupMinSize: 16 }).requestDevice({ requiredFeatures: features });
    expect(seen).toEqual([
      { requiredFeatures: ['timestamp-query', 'shader-f16'] },
      { requiredFeatures: features },
    ]);
  });

  it('does nothing without WebGPU', () => {
    expect(() => installSubgroupGuard({})).not.toThrow();
  });
});
