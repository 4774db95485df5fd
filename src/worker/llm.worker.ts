/// <reference lib="webworker" />
/**
 * The chat worker: transformers.js + ONNX Runtime Web on WebGPU. The only file that imports
 * transformers.js, so neither lands in the main-thread bundle.
 */
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  DynamicCache,
  GenerationConfig,
  InterruptableStoppingCriteria,
  ModelRegistry,
  PretrainedConfig,
  Tensor,
  TextStreamer,
  env,
  type DataType,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type ProgressInfo,
} from '@huggingface/transformers';
// ONNX Runtime's wasm and its loader are served by the app itself, never from a CDN.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import {
  faultMessage,
  type FinishReason,
  type ModelLoadSpec,
  type WorkerRequest,
  type WorkerResponse,
} from '../shared/worker-protocol';
import { GenerationClock } from '../shared/generation-stats';
import { errorMessage } from '../shared/errors';
import { isObject, isUnknownArray } from '../shared/guards';
import { DEFAULT_MODEL_HOST } from '../shared/models';
import { TokenTextStreamer } from './token-streamer';
import { installSubgroupGuard } from './subgroup-guard';
import { describeLoadError, fallbackReason, resolveVariant } from './load-plan';
import { TurnCache } from './kv-cache';
import {
  deleteStoredModel,
  listStoredModels,
  missingWeightFiles,
  planDownload,
  storePlan,
  storedPlan,
  type Registry,
} from './model-storage';
import type { StorageRequest } from '../shared/storage-protocol';
import {
  DEFAULT_MAX_NEW_TOKENS,
  isSampling,
  recommendedFromGenerationConfig,
} from '../shared/generation-settings';
import { missingVariantMessage } from '../shared/models';
import {
  continuationPrompt,
  probeChatFormat,
  stopIds,
  withSystemPrompt,
  type ChatFormat,
} from './chat-format';
import { compareReplay, replaySteps, type ReferenceCheck } from '../shared/reference-check';
import { readTrainerReference } from './reference-replay';

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

/** Text is posted at most this often (plus at once for the first token and at the end). */
export const UPDATE_INTERVAL_MS = 32;

interface GpuDeviceLike {
  lost: Promise<{ reason: string; message: string }>;
  destroy(): void;
}

/** ONNX Runtime types its device `unknown` without @webgpu/types: checked for what is used. */
function isGpuDeviceLike(value: unknown): value is GpuDeviceLike {
  return (
    isObject(value) &&
    isObject(value.lost) &&
    typeof value.lost.then === 'function' &&
    typeof value.destroy === 'function'
  );
}
let watchedDevice: GpuDeviceLike | null = null;
/** Devices released with the model they ran (a switch): their loss is expected, not a fault. */
const released = new WeakSet<GpuDeviceLike>();

/** Watches the GPUDevice ONNX Runtime uses: a lost device ends this worker's usefulness. */
async function watchDevice() {
  const device: unknown = await env.backends.onnx.webgpu?.device;
  if (!isGpuDeviceLike(device) || device === watchedDevice) return;
  watchedDevice = device;
  void device.lost.then((info) => {
    if (released.has(device)) return;
    const detail = info.message || `the device was ${info.reason || 'lost'}`;
    post({ status: 'fault', kind: 'device-lost', data: faultMessage('device-lost', detail) });
  });
}

interface Loaded {
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
  spec: ModelLoadSpec;
  thinkOpenId?: bigint | undefined;
  thinkCloseId?: bigint | undefined;
  /** What the chat template does (system role, end-of-turn token), found at load. */
  format: ChatFormat;
  /** The generation config's eos ids plus the template's end of turn. */
  stop: number[];
}

let loaded: Loaded | null = null;
const stopping = new InterruptableStoppingCriteria();
/** KV cache reused across turns; cleared on reset (and after an interrupted turn). */
const turnCache = new TurnCache<DynamicCache>();
let generating = false;
/** Settles when the running generation ends (a load waits for it before disposing). */
let generationDone: Promise<void> = Promise.resolve();
/**
 * The trainer's reference replay that follows a load (null when none runs): a message waits for
 * it, a load stops it. Its own stopping criteria, so the chat's Stop and reset leave it alone.
 */
let replaying: Promise<void> | null = null;
const replayStop = new InterruptableStoppingCriteria();

function disposeCache() {
  turnCache.clear();
}

/** transformers.js's dtypes (its DATA_TYPES, which the package does not export): all, no other. */
const DATA_TYPES: Readonly<Record<DataType, true>> = {
  auto: true,
  fp32: true,
  fp16: true,
  q8: true,
  int8: true,
  uint8: true,
  q4: true,
  bnb4: true,
  q4f16: true,
  q2: true,
  q2f16: true,
  q1: true,
  q1f16: true,
};

function isDataType(dtype: string): dtype is DataType {
  return Object.hasOwn(DATA_TYPES, dtype);
}

/** A spec's dtype as transformers.js's type; the library's own error for one it does not know. */
function dataType(dtype: string): DataType {
  if (!isDataType(dtype))
    throw new Error(
      `Invalid dtype: ${dtype}. Should be one of: ${Object.keys(DATA_TYPES).join(', ')}`,
    );
  return dtype;
}

/** transformers.js's cache API, as model-storage.ts uses it (its dtype strings checked). */
const registry: Registry = {
  get_files: async (modelId, options) =>
    ModelRegistry.get_files(modelId, {
      ...options,
      dtype: options?.dtype === undefined ? undefined : dataType(options.dtype),
    }),
  get_file_metadata: async (modelId, file) => ModelRegistry.get_file_metadata(modelId, file),
  clear_cache: async (modelId, options) =>
    ModelRegistry.clear_cache(modelId, {
      ...options,
      dtype: options?.dtype === undefined ? undefined : dataType(options.dtype),
    }),
};

/** The first row of a tensor of token ids (input_ids, sequences) as bigints. */
function firstRow(tensor: Tensor): bigint[] {
  const row: unknown = tensor.tolist()[0];
  return isUnknownArray(row) ? row.filter((id) => typeof id === 'bigint') : [];
}

/**
 * What generate() returns with `return_dict_in_generate: true`: the generated sequences and the KV
 * cache. Its typings say `ModelOutput | Tensor`, so each is checked (left out when absent).
 */
function generateOutput(result: unknown): { sequences?: Tensor; past_key_values?: DynamicCache } {
  if (!isObject(result)) return {};
  const { sequences, past_key_values } = result;
  return {
    ...(sequences instanceof Tensor ? { sequences } : {}),
    ...(past_key_values instanceof DynamicCache ? { past_key_values } : {}),
  };
}

/**
 * generate() calls only its streamer's put() and end() (a BaseStreamer), but its typings ask for a
 * TextStreamer (GenerationConfig's `streamer`): this TextStreamer hands both calls to ours.
 */
class StreamerAdapter extends TextStreamer {
  constructor(
    tokenizer: PreTrainedTokenizer,
    private readonly target: Pick<TokenTextStreamer, 'put' | 'end'>,
  ) {
    super(tokenizer);
  }
  override put(value: bigint[][]): void {
    this.target.put(value);
  }
  override end(): void {
    this.target.end();
  }
}

function tokenIdOf(tokenizer: PreTrainedTokenizer, token: string | undefined): bigint | undefined {
  if (!token) return undefined;
  const ids = tokenizer.encode(token, { add_special_tokens: false });
  return ids.length === 1 && ids[0] !== undefined ? BigInt(ids[0]) : undefined;
}

async function load(spec: ModelLoadSpec) {
  const variant = resolveVariant(spec);
  if ('error' in variant) {
    post({ status: 'error', data: variant.error, phase: 'load' });
    return;
  }
  env.remoteHost = spec.host ?? DEFAULT_MODEL_HOST;
  const progress_callback = (info: ProgressInfo) => {
    switch (info.status) {
      case 'initiate':
        post({ status: 'initiate', file: info.file });
        break;
      case 'progress':
        post({
          status: 'progress',
          file: info.file,
          progress: info.progress,
          total: info.total,
          loaded: info.loaded,
        });
        break;
      case 'done':
        post({ status: 'done', file: info.file });
        break;
      default:
        break;
    }
  };
  try {
    post({ status: 'loading', data: 'Loading model...' });
    // A reference replay still running is stopped first (it reports itself stopped).
    if (replaying) {
      replayStop.interrupt();
      await replaying;
    }
    // A switch mid-reply: stop the reply and let it finish before freeing its model.
    if (generating) {
      stopping.interrupt();
      await generationDone;
    }
    disposeCache();
    const previous = loaded;
    loaded = null;
    if (previous && watchedDevice) {
      // Releasing the last session may destroy ONNX Runtime's device: expected, not a fault.
      released.add(watchedDevice);
      watchedDevice = null;
    }
    await previous?.model.dispose();
    // A variant whose files the host lacks is never tried (no download, a reason instead).
    const missing = await missingWeightFiles(variant, registry).catch(() => []);
    if (missing.length > 0) {
      post({
        status: 'error',
        phase: 'load',
        data: missingVariantMessage({
          label: spec.label ?? spec.id,
          id: variant.id,
          dtype: variant.dtype,
          missing,
          isFallback: fallbackReason(spec, variant) !== null,
          runsWithoutF16: spec.runsWithoutF16 ?? [],
        }),
      });
      return;
    }
    const tokenizer = await AutoTokenizer.from_pretrained(variant.id, { progress_callback }).catch(
      (error: unknown) => {
        throw new Error(
          `Could not load the tokenizer of ${variant.id}: ${describeLoadError(error, spec.host)}`,
        );
      },
    );
    // Before the weights: a template that cannot chat fails the load, not every message.
    const format = probeChatFormat(tokenizer, variant.id);
    post({ status: 'loading', data: `Loading ${variant.id} (${variant.dtype})...` });
    const model = await AutoModelForCausalLM.from_pretrained(variant.id, {
      dtype: dataType(variant.dtype),
      device: 'webgpu',
      progress_callback,
      ...(spec.externalData ? { use_external_data_format: true } : {}),
    });
    await watchDevice();
    post({ status: 'loading', data: 'Compiling shaders and warming up model...' });
    await warmUp(tokenizer, model);
    const generationConfig = model.generation_config;
    const eos: unknown =
      generationConfig?.eos_token_id ??
      ('eos_token_id' in model.config ? model.config.eos_token_id : undefined);
    turnCache.enabled = spec.reuseCache !== false;
    const current: Loaded = {
      tokenizer,
      model,
      spec,
      thinkOpenId: tokenIdOf(tokenizer, spec.thinkTokens?.open),
      thinkCloseId: tokenIdOf(tokenizer, spec.thinkTokens?.close),
      format,
      stop: stopIds(eos, format),
    };
    loaded = current;
    const checking = spec.trainerReference === true;
    const recommended = {
      ...recommendedFromGenerationConfig(generationConfig),
      ...spec.recommended,
    };
    post({
      status: 'ready',
      data: {
        id: variant.id,
        dtype: variant.dtype,
        systemRole: format.systemRole,
        ...(Object.keys(recommended).length > 0 ? { recommended } : {}),
        ...(checking ? { checking } : {}),
      },
    });
    if (checking) startReplay(current, variant);
  } catch (error) {
    const why = fallbackReason(spec, variant);
    const message = describeLoadError(error, spec.host);
    post({ status: 'error', data: why ? `${why}. ${message}` : message, phase: 'load' });
  }
}

/**
 * Compiles what a real first reply needs: the chat template around a short message (prefill of
 * a realistic length) and several decode steps with a KV cache, which is then disposed. A bare
 * one-token warm-up leaves the decode path cold, so the first reply waited seconds for its text.
 */
async function warmUp(tokenizer: PreTrainedTokenizer, model: PreTrainedModel) {
  const inputs = tokenizer.apply_chat_template(
    [{ role: 'user', content: 'Hello! Give me one short tip for a good day.' }],
    { add_generation_prompt: true, return_dict: true },
  );
  const result = generateOutput(
    await model.generate({
      ...inputs,
      do_sample: false,
      max_new_tokens: 4,
      return_dict_in_generate: true,
    }),
  );
  for (const t of Object.values(result.past_key_values ?? {})) t.dispose?.();
}

/** Runs the replay as worker work of its own (with the heartbeat); a message waits for it. */
function startReplay(current: Loaded, variant: { id: string; dtype: string }) {
  const run = withHeartbeat(replayReference(current, variant)).finally(() => {
    if (replaying === run) replaying = null;
  });
  replaying = run;
}

async function replayReference(current: Loaded, variant: { id: string; dtype: string }) {
  const check = await checkReference(current, variant).catch((error: unknown): ReferenceCheck => ({
    result: 'unavailable',
    reason: `the replay failed (${describeLoadError(error)})`,
  }));
  post({ status: 'reference', id: variant.id, dtype: variant.dtype, check });
}

/**
 * Replays export.json's reference with the variant that loaded: its prompt ids, greedy, exactly
 * `replaySteps` new tokens (a generation config of transformers.js's defaults: no end-of-sequence
 * stop, no penalty or forced token from the model's own config), then compares (reference-check.ts).
 */
async function checkReference(
  current: Loaded,
  variant: { id: string; dtype: string },
): Promise<ReferenceCheck> {
  const reference = await readTrainerReference(
    { ...variant, host: current.spec.host },
    { fetch: (url, init) => self.fetch(url, init), caches: self.caches },
  );
  if ('missing' in reference) return { result: 'unavailable', reason: reference.missing };
  const steps = replaySteps(reference);
  const length = reference.promptIds.length;
  replayStop.reset();
  const result = generateOutput(
    await current.model.generate({
      input_ids: new Tensor('int64', BigInt64Array.from(reference.promptIds, BigInt), [1, length]),
      attention_mask: new Tensor('int64', new BigInt64Array(length).fill(1n), [1, length]),
      generation_config: new GenerationConfig(new PretrainedConfig({})),
      max_new_tokens: steps,
      stopping_criteria: replayStop,
      return_dict_in_generate: true,
    }),
  );
  for (const t of Object.values(result.past_key_values ?? {})) t.dispose?.();
  if (replayStop.interrupted)
    return { result: 'unavailable', reason: 'another model was loaded before the check ended' };
  const generated = result.sequences ? firstRow(result.sequences).slice(length).map(Number) : [];
  return compareReplay(reference, generated, {
    dtype: variant.dtype,
    shaderF16: current.spec.shaderF16,
    decode: (id) => current.tokenizer.decode([id], { skip_special_tokens: false }),
  });
}

async function generate(messages: Extract<WorkerRequest, { type: 'generate' }>) {
  const purpose = messages.purpose ?? 'chat';
  // Right after a load the reference replay runs (16 tokens): a message waits for it. A Stop
  // (or reset) pressed meanwhile still stops this reply.
  let stoppedWhileWaiting = false;
  if (replaying) {
    stopping.reset();
    await replaying;
    stoppedWhileWaiting = stopping.interrupted;
  }
  if (!loaded) {
    post({ status: 'error', data: 'No model is loaded.', phase: 'generate', purpose });
    return;
  }
  if (generating) {
    post({
      status: 'error',
      data: 'The model is busy with another reply; try again when it is done.',
      phase: 'generate',
      purpose,
    });
    return;
  }
  // A dataset run is a one-off prompt: it neither uses nor disturbs the chat's KV cache.
  const useCache = purpose === 'chat';
  const { tokenizer, model, thinkOpenId, thinkCloseId, format, stop } = loaded;
  generating = true;
  let endGeneration = () => {};
  generationDone = new Promise<void>((resolve) => (endGeneration = resolve));
  stopping.reset();
  if (stoppedWhileWaiting) stopping.interrupt();
  const maxNewTokens = messages.options?.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
  let clock = new GenerationClock(0);
  // Text is batched: one message per UPDATE_INTERVAL_MS at most, so per-token postMessage and
  // main-thread work vanish; the first token and the end are posted at once.
  let pending = '';
  let pendingChannel: 'answer' | 'thinking' = 'answer';
  let lastPost = 0;
  const flushText = () => {
    if (!pending) return;
    post({
      status: 'update',
      output: pending,
      tps: clock.decodeTps() ?? undefined,
      numTokens: clock.numTokens,
      channel: pendingChannel,
      purpose,
    });
    pending = '';
    lastPost = performance.now();
  };
  const streamer = new TokenTextStreamer({
    decode: (ids) => tokenizer.decode(ids, { skip_special_tokens: true }),
    thinkOpenId,
    thinkCloseId,
    onToken: () => clock.token(),
    onText: (output, channel) => {
      if (pending && channel !== pendingChannel) flushText();
      pending += output;
      pendingChannel = channel;
      if (lastPost === 0 || performance.now() - lastPost >= UPDATE_INTERVAL_MS) flushText();
    },
  });
  post({ status: 'start', purpose });
  try {
    const options = messages.options;
    // Where the template has no system role, the prompt starts the first user message.
    const conversation = withSystemPrompt(messages.data, options?.systemPrompt, format);
    // Continue: the last reply is left open and the model writes on into it.
    const inputs = options?.continue
      ? tokenizer(continuationPrompt(tokenizer, conversation), { add_special_tokens: false })
      : tokenizer.apply_chat_template(conversation, {
          add_generation_prompt: true,
          return_dict: true,
        });
    const promptIds = firstRow(inputs.input_ids);
    clock = new GenerationClock(promptIds.length);
    const output = await model.generate({
      ...inputs,
      past_key_values: useCache ? turnCache.take(promptIds) : null,
      // The template's end of turn ends a reply even where the generation config omits it.
      ...(stop.length > 0 ? { eos_token_id: stop } : {}),
      // Temperature 0 = greedy (repeatable); above 0 samples with top p.
      ...(options?.temperature !== undefined && isSampling({ temperature: options.temperature })
        ? { do_sample: true, temperature: options.temperature, top_p: options.topP ?? 1 }
        : { do_sample: false }),
      repetition_penalty: options?.repetitionPenalty ?? 1,
      max_new_tokens: maxNewTokens,
      streamer: new StreamerAdapter(tokenizer, streamer),
      stopping_criteria: stopping,
      return_dict_in_generate: true,
    });
    const result = generateOutput(output);
    const interrupted = stopping.interrupted;
    const disposeResult = () => {
      for (const t of Object.values(result.past_key_values ?? {})) t.dispose?.();
    };
    if (!useCache) {
      disposeResult();
    } else if (interrupted) {
      // The cache now holds a reply the next prompt will not reproduce token for token.
      disposeCache();
      disposeResult();
    } else {
      turnCache.keep(result);
    }
    flushText();
    const stats = clock.finish();
    const lastId = result.sequences ? firstRow(result.sequences).at(-1) : undefined;
    const endedByModel = lastId !== undefined && stop.some((id) => BigInt(id) === lastId);
    const finish: FinishReason = interrupted
      ? 'stopped'
      : endedByModel || stats.numTokens < maxNewTokens
        ? 'end'
        : 'length';
    post({
      status: 'complete',
      numTokens: stats.numTokens,
      seconds: stats.seconds,
      interrupted,
      stats,
      finish,
      purpose,
    });
  } catch (error) {
    if (useCache) disposeCache();
    post({ status: 'error', data: describeLoadError(error), phase: 'generate', purpose });
  } finally {
    generating = false;
    endGeneration();
  }
}

async function adapterLimits() {
  interface AdapterLike {
    limits: { maxBufferSize: number; maxStorageBufferBindingSize: number };
    features: { has(name: string): boolean };
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
  };
}

async function storage(request: StorageRequest) {
  switch (request.type) {
    case 'storage.list':
      try {
        post({ status: 'stored', models: await listStoredModels(self.caches) });
      } catch (error) {
        post({
          status: 'storage-error',
          op: 'list',
          data: `Could not read the browser cache: ${errorMessage(error)}`,
        });
      }
      break;
    case 'storage.delete': {
      const host = env.remoteHost;
      try {
        const removed = await deleteStoredModel(request.id, {
          storage: self.caches,
          registry,
          setHost: (h) => (env.remoteHost = h),
        });
        post({ status: 'deleted', id: request.id, removed });
      } catch (error) {
        post({
          status: 'storage-error',
          op: 'delete',
          id: request.id,
          data: `Could not delete ${request.id}: ${errorMessage(error)}`,
        });
      } finally {
        env.remoteHost = host;
      }
      break;
    }
    case 'plan': {
      env.remoteHost = request.data.host ?? DEFAULT_MODEL_HOST;
      try {
        const estimate = await self.navigator.storage?.estimate().catch(() => null);
        const plan = await planDownload(request.data, {
          registry,
          limits: await adapterLimits(),
          estimate: estimate ?? null,
        });
        post({ status: 'plan', plan });
        // Kept so the size shows offline too (a variant with missing files is not worth keeping).
        if (!plan.missing?.length) await storePlan(self.caches, request.data, plan).catch(() => {});
      } catch (error) {
        const stored = await storedPlan(self.caches, request.data).catch(() => null);
        if (stored) {
          post({ status: 'plan', plan: stored });
          break;
        }
        post({
          status: 'storage-error',
          op: 'plan',
          id: request.data.id,
          data: errorMessage(error),
        });
      }
      break;
    }
  }
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
async function withHeartbeat(work: Promise<void>) {
  if (busy++ === 0) beating = setInterval(() => post({ status: 'alive' }), HEARTBEAT_MS);
  try {
    await work;
  } finally {
    if (--busy === 0) clearInterval(beating);
  }
}

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'check':
      // transformers.js is imported by now; WebGPU itself is probed once, on the page.
      break;
    case 'debug.loseDevice':
      if (DEBUG) watchedDevice?.destroy();
      break;
    case 'debug.close':
      // A worker that dies without an error event (what a crash looks like from the page).
      if (DEBUG) self.close();
      break;
    case 'load':
      void withHeartbeat(load(request.data));
      break;
    case 'generate':
      void withHeartbeat(generate(request));
      break;
    case 'interrupt':
      stopping.interrupt();
      break;
    case 'reset':
      // Clearing the KV cache on reset is the step the public demos forget.
      stopping.interrupt();
      disposeCache();
      break;
    case 'storage.list':
    case 'storage.delete':
    case 'plan':
      void storage(request);
      break;
  }
});
