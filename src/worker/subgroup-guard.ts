/**
 * Keeps ONNX Runtime Web off GPU subgroup paths where a GPU's subgroups are smaller than its
 * shaders assume.
 *
 * ONNX Runtime's WebGPU flash-attention prefill (used by GroupQueryAttention, which the trainer's
 * fused browser exports use) sizes its tiles from the subgroup size and is only correct for
 * subgroups of at least 8 invocations; it runs whenever the device has the `subgroups` feature.
 * On an adapter whose smallest subgroup is smaller (SwiftShader's is 4, as are some mobile GPUs')
 * a prompt of 32 tokens or more then gets wrong attention from its fifth position on, while decode
 * steps stay right. Newer ONNX Runtime sources gate that path on a minimum subgroup size; the build
 * the app ships does not. So on such adapters the device ONNX Runtime requests is created without
 * the subgroup features, and ONNX Runtime takes its subgroup-free shaders, which are correct.
 * Adapters with subgroups of 8 or more are untouched.
 */

import { isObject, isUnknownArray } from '../shared/guards';

/** The smallest subgroup size ONNX Runtime's subgroup shaders are correct for. */
export const MIN_SUBGROUP_SIZE = 8;

/** An adapter's smallest subgroup size, when it says (GPUAdapterInfo.subgroupMinSize). */
function subgroupMinSize(adapter: unknown): number | undefined {
  const info = isObject(adapter) ? adapter.info : undefined;
  const min = isObject(info) ? info.subgroupMinSize : undefined;
  return typeof min === 'number' ? min : undefined;
}

/** The descriptor to request a device with on this adapter: subgroup features dropped if too small. */
export function guardedDescriptor(adapter: unknown, descriptor: unknown): unknown {
  const min = subgroupMinSize(adapter);
  if (min === undefined || min >= MIN_SUBGROUP_SIZE || !isObject(descriptor)) return descriptor;
  const required = descriptor.requiredFeatures;
  if (!isUnknownArray(required)) return descriptor;
  const features = required.filter((f) => typeof f !== 'string' || !f.startsWith('subgroup'));
  return { ...descriptor, requiredFeatures: features };
}

/**
 * Wraps `GPUAdapter.prototype.requestDevice` in this worker (once) so that every device requested
 * on a small-subgroup adapter goes through guardedDescriptor. A no-op where WebGPU is absent.
 */
export function installSubgroupGuard(scope: unknown) {
  const adapterClass = isObject(scope) ? scope.GPUAdapter : undefined;
  const proto: unknown = typeof adapterClass === 'function' ? adapterClass.prototype : undefined;
  if (!isObject(proto) || GUARDED.has(proto)) return;
  const original = proto.requestDevice;
  if (typeof original !== 'function') return;
  proto.requestDevice = function (this: unknown, descriptor?: unknown): unknown {
    const device: unknown = Reflect.apply(original, this, [guardedDescriptor(this, descriptor)]);
    return device;
  };
  GUARDED.add(proto);
}

const GUARDED = new WeakSet<object>();
