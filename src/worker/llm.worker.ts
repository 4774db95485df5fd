/// <reference lib="webworker" />
/**
 * The model worker: the transport between the page and the engine (engine.ts). Requests come in as
 * messages and become engine calls; the engine's replies go out as messages, with the heartbeat
 * while it works. ONNX Runtime's set-up and the GPU device watch live here because they are the
 * browser's. The only entry that imports transformers.js, so neither lands in the main bundle.
 */
import { env } from '@huggingface/transformers';
// ONNX Runtime's wasm and its loader are served by the app itself, never from a CDN.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import {
  faultMessage,
  type CountResponse,
  type GenerationResponse,
  type WorkerRequest,
  type WorkerResponse,
} from '../shared/worker-protocol';
import { isObject } from '../shared/guards';
import { installSubgroupGuard } from './subgroup-guard';
import { LlmEngine, type EngineGenerationReply } from './engine';
import { HostGate } from './host-gate';
import { askedOnce, createDeviceWatch } from './device-watch';
import { answerStorage } from './storage-requests';
import { createUpdateBatcher, updateIntervalFor } from './update-batcher';

declare const self: DedicatedWorkerGlobalScope;

// Before ONNX Runtime requests its GPUDevice: no subgroup shaders on adapters too small for them.
installSubgroupGuard(self);

const onnxEnv = env.backends.onnx;
if (onnxEnv.wasm) {
  onnxEnv.wasm.wasmPaths = {
    wasm: new URL(ortWasmUrl, self.location.href).href,
    mjs: new URL(ortMjsUrl, self.location.href).href,
  };
}
env.allowLocalModels = false;
// Model files go to the browser's Cache API, so a loaded model works offline after a reload.
env.useBrowserCache = true;

const post = (message: WorkerResponse) => self.postMessage(message);

/** `debug.loseDevice` and `debug.close` are honoured only when the page was opened with `?debug` (worker name). */
const DEBUG = self.name.endsWith('-debug');

const device = createDeviceWatch(
  () => env.backends.onnx.webgpu?.device,
  (detail) =>
    post({ status: 'fault', kind: 'device-lost', data: faultMessage('device-lost', detail) }),
);
const hosts = new HostGate((host) => (env.remoteHost = host));
const engine = new LlmEngine({
  device: 'webgpu',
  hosts,
  reference: { fetch: (url, init) => self.fetch(url, init), caches: self.caches },
  limits: () => adapterFacts(),
  afterCreate: () => device.watch(),
  beforeRelease: () => device.release(),
});

/** The adapter's facts, asked once (a lost device is replaced on the same adapter kind). */
const adapterFacts = askedOnce(readAdapter);

async function readAdapter() {
  interface AdapterLike {
    limits: { maxBufferSize: number; maxStorageBufferBindingSize: number };
    features: { has(name: string): boolean };
    info?: { isFallbackAdapter?: boolean };
  }
  const isGpu = (value: unknown): value is { requestAdapter(): Promise<AdapterLike | null> } =>
    isObject(value) && typeof value.requestAdapter === 'function';
  const gpu = 'gpu' in self.navigator ? self.navigator.gpu : undefined;
  const adapter = isGpu(gpu) ? await gpu.requestAdapter().catch(() => null) : undefined;
  if (!adapter) return null;
  return {
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    shaderF16: adapter.features.has('shader-f16'),
    fallback: adapter.info?.isFallbackAdapter === true,
  };
}

/**
 * The heartbeat: `alive` every HEARTBEAT_MS while a load or a generation runs, so the machine
 * waiting on it tells a dead worker (closed, crashed: silent) from a slow one within seconds.
 * A timer on this thread is a faithful sign of life because ONNX Runtime Web runs here without
 * blocking it for long: in a worker its proxy is off (`isProxy` needs a `document`), and
 * `InferenceSession.run` (the asyncify build's `_OrtRun`) only encodes the GPU work
 * synchronously, then awaits the GPU's results (`mapAsync`) — so however long a prefill takes
 * on a slow GPU, the event loop turns and the beat goes out. The long synchronous stretches
 * are in `InferenceSession.create` (graph optimisation and weight upload in WebAssembly,
 * seconds for the bigger models), which is why the model machine allows more silence while
 * loading than the chat allows during a reply.
 */
const HEARTBEAT_MS = 2000;
let busy = 0;
let beating: ReturnType<typeof setInterval> | undefined;
async function withHeartbeat(work: Promise<unknown>) {
  if (busy++ === 0) beating = setInterval(() => post({ status: 'alive' }), HEARTBEAT_MS);
  try {
    await work;
  } finally {
    if (--busy === 0) clearInterval(beating);
  }
}

async function load(request: Extract<WorkerRequest, { type: 'load' }>) {
  const { replay } = await engine.load(request.data, post);
  // The trainer's reference replay is worker work of its own (with the heartbeat).
  if (replay) void withHeartbeat(replay);
}

async function generate(request: Extract<WorkerRequest, { type: 'generate' }>) {
  const purpose = request.purpose ?? 'chat';
  const batcher = createUpdateBatcher<EngineGenerationReply>(
    (reply) =>
      post({ ...reply, purpose, requestId: request.requestId } satisfies GenerationResponse),
    updateIntervalFor(await adapterFacts().catch(() => null)),
  );
  await engine.generate(
    {
      messages: request.data,
      options: request.options,
      // Only the chat keeps a conversation: a one-off prompt neither uses nor disturbs its cache.
      useCache: purpose === 'chat',
    },
    (reply) => batcher.push(reply),
  );
}

/** The chat's token count: synchronous tokenization, no heartbeat needed. */
function countAnswer(request: Extract<WorkerRequest, { type: 'count' }>): CountResponse {
  try {
    return {
      status: 'count',
      seq: request.seq,
      ...engine.countUsage(request.data, request.draft, request.options),
    };
  } catch (error) {
    return {
      status: 'count',
      seq: request.seq,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'check':
      // transformers.js is imported by now; WebGPU itself is probed once, on the page.
      break;
    case 'debug.loseDevice':
      if (DEBUG) device.destroy();
      break;
    case 'debug.close':
      // A worker that dies without an error event (what a crash looks like from the page).
      if (DEBUG) self.close();
      break;
    case 'load':
      void withHeartbeat(load(request));
      break;
    case 'generate':
      void withHeartbeat(generate(request));
      break;
    case 'interrupt':
      engine.interrupt();
      break;
    case 'reset':
      engine.reset();
      break;
    case 'count':
      post(countAnswer(request));
      break;
    case 'storage.list':
    case 'storage.delete':
    case 'plan':
      void answerStorage(request, {
        caches: self.caches,
        hosts,
        limits: adapterFacts,
        estimate: async () => (await self.navigator.storage?.estimate()) ?? null,
        post,
      });
      break;
  }
});
