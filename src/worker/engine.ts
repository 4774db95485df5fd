/**
 * The engine: one model, its tokenizer, its KV cache and its generation — load, generate
 * (streamed through a callback), interrupt, reset, dispose, count tokens, and the trainer's
 * reference replay after a load. It knows nothing of Workers or messages: llm.worker.ts carries
 * requests in and replies out, and tests/node/engine.test.ts drives it in Node on the CPU.
 */
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  GenerationConfig,
  InterruptableStoppingCriteria,
  PretrainedConfig,
  Tensor,
  type DynamicCache,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type ProgressInfo,
} from '@huggingface/transformers';
import type {
  ChatMessage,
  FinishReason,
  GenerateOptions,
  GenerationResponse,
  LoadResponse,
  ModelLoadSpec,
  ReferenceResponse,
  TooLong,
} from '../shared/worker-protocol';
import { GenerationClock } from '../shared/generation-stats';
import {
  contextWindow,
  fitToWindow,
  kvShapeOf,
  type BufferLimits,
  type ContextWindow,
} from '../shared/context-window';
import { DEFAULT_MODEL_HOST, missingVariantMessage } from '../shared/models';
import { recommendedFromGenerationConfig } from '../shared/generation-settings';
import { compareReplay, replaySteps, type ReferenceCheck } from '../shared/reference-check';
import {
  continuationPrompt,
  probeChatFormat,
  stopIds,
  withSystemPrompt,
  type ChatFormat,
} from './chat-format';
import { TurnCache, cropDynamicCache } from './kv-cache';
import { describeLoadError, fallbackReason, resolveVariant } from './load-plan';
import { missingWeightFiles } from './model-storage';
import { readTrainerReference, type ReportDeps } from './reference-replay';
import { TokenTextStreamer } from './token-streamer';
import type { HostGate } from './host-gate';
import { samplingArgs } from './sampling';
import {
  StreamerAdapter,
  dataType,
  disposeCacheOf,
  firstRow,
  generateOutput,
  registry,
  tokenIdOf,
} from './transformers-adapters';

/** What the engine needs from where it runs. */
export interface EngineDeps {
  /** Where the model runs: WebGPU in the browser, the CPU in Node tests. */
  device: 'webgpu' | 'cpu';
  /** Sets transformers.js's model host for the files of one load at a time (host-gate.ts). */
  hosts: HostGate;
  /** Reads the trainer's reference (export.json) for the replay after a load. */
  reference: ReportDeps;
  /** The GPU adapter's buffer limits, which bound the KV cache (none on the CPU). */
  limits?: (() => Promise<BufferLimits | null>) | undefined;
  /** After a model is created (the worker watches the GPU device it runs on). */
  afterCreate?: (() => Promise<void>) | undefined;
  /** Before the previous model is freed (its device's loss is then expected, not a fault). */
  beforeRelease?: (() => void) | undefined;
}

/** A generation request as the engine takes it. */
export interface GenerateCall {
  messages: ChatMessage[];
  options?: GenerateOptions | undefined;
  /** Use and keep the KV cache across turns (the chat); a one-off prompt neither uses nor disturbs it. */
  useCache: boolean;
}

/** A generation's replies, without the transport's addressing (request id, purpose). */
export type EngineGenerationReply = GenerationResponse extends infer R
  ? R extends unknown
    ? Omit<R, 'purpose'>
    : never
  : never;

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
  /** The usable context window, found at load. */
  window: ContextWindow;
}

type Prompt = { input_ids: Tensor; attention_mask: Tensor };

export class LlmEngine {
  private loaded: Loaded | null = null;
  private readonly stopping = new InterruptableStoppingCriteria();
  /** KV cache reused across turns, cut where the next prompt differs; cleared on reset. */
  private readonly turnCache = new TurnCache<DynamicCache>(true, cropDynamicCache);
  private generating = false;
  /** Settles when the running generation ends (a load waits for it before disposing). */
  private generationDone: Promise<void> = Promise.resolve();
  /**
   * The trainer's reference replay that follows a load (null when none runs): a generation waits
   * for it, a load stops it. Its own stopping criteria, so the chat's Stop and reset leave it alone.
   */
  private replaying: Promise<void> | null = null;
  private readonly replayStop = new InterruptableStoppingCriteria();

  constructor(private readonly deps: EngineDeps) {}

  /** How many prompts were given the previous turn's KV cache (tests tell reuse from none). */
  get reusedTurns(): number {
    return this.turnCache.reused;
  }

  /** How many of those were given a cache cut where the prompt differs from it. */
  get croppedTurns(): number {
    return this.turnCache.cropped;
  }

  /**
   * Loads a model (freeing the previous one), reporting through `emit` as the worker protocol says:
   * `loading`, file progress, then `ready` or `error`. Resolves once it is ready or failed; the
   * returned `replay` (when the model carries the trainer's reference) settles after `reference`.
   */
  async load(
    spec: ModelLoadSpec,
    emit: (message: LoadResponse | ReferenceResponse) => void,
  ): Promise<{ replay: Promise<void> | null }> {
    const none = { replay: null };
    const variant = resolveVariant(spec);
    if ('error' in variant) {
      emit({ status: 'error', data: variant.error, phase: 'load' });
      return none;
    }
    const progress_callback = (info: ProgressInfo) => {
      if (info.status === 'initiate') emit({ status: 'initiate', file: info.file });
      else if (info.status === 'progress')
        emit({
          status: 'progress',
          file: info.file,
          progress: info.progress,
          total: info.total,
          loaded: info.loaded,
        });
      else if (info.status === 'done') emit({ status: 'done', file: info.file });
    };
    try {
      emit({ status: 'loading', data: 'Loading model...' });
      // A reference replay still running is stopped first (it reports itself stopped).
      if (this.replaying) {
        this.replayStop.interrupt();
        await this.replaying;
      }
      // A switch mid-reply: stop the reply and let it finish before freeing its model.
      if (this.generating) {
        this.stopping.interrupt();
        await this.generationDone;
      }
      await this.dispose();
      const host = spec.host ?? DEFAULT_MODEL_HOST;
      const files = await this.deps.hosts.run(host, async () => {
        // A variant whose files the host lacks is never tried (no download, a reason instead).
        const missing: string[] = await missingWeightFiles(variant, registry).catch(() => []);
        if (missing.length > 0) return { missing, model: null };
        const tokenizer = await AutoTokenizer.from_pretrained(variant.id, {
          progress_callback,
        }).catch((error: unknown) => {
          throw new Error(
            `Could not load the tokenizer of ${variant.id}: ${describeLoadError(error, spec.host)}`,
          );
        });
        // Before the weights: a template that cannot chat fails the load, not every message.
        const format = probeChatFormat(tokenizer, variant.id);
        emit({ status: 'loading', data: `Loading ${variant.id} (${variant.dtype})...` });
        const model = await AutoModelForCausalLM.from_pretrained(variant.id, {
          dtype: dataType(variant.dtype),
          device: this.deps.device,
          progress_callback,
          ...(spec.externalData ? { use_external_data_format: true } : {}),
        });
        return { tokenizer, format, model };
      });
      if (files.model === null) {
        emit({
          status: 'error',
          phase: 'load',
          data: missingVariantMessage({
            label: spec.label ?? spec.id,
            id: variant.id,
            dtype: variant.dtype,
            missing: files.missing,
            isFallback: fallbackReason(spec, variant) !== null,
            runsWithoutF16: spec.runsWithoutF16 ?? [],
          }),
        });
        return none;
      }
      const { tokenizer, format, model } = files;
      await this.deps.afterCreate?.();
      emit({ status: 'loading', data: 'Compiling shaders and warming up model...' });
      await warmUp(tokenizer, model);
      const generationConfig = model.generation_config;
      const eos: unknown =
        generationConfig?.eos_token_id ??
        ('eos_token_id' in model.config ? model.config.eos_token_id : undefined);
      this.turnCache.enabled = spec.reuseCache !== false;
      const config: Record<string, unknown> = { ...model.config };
      const window = contextWindow({
        maxPositions: config.max_position_embeddings,
        entryLimit: spec.contextLimit,
        kv: kvShapeOf(config, variant.dtype),
        limits: (await this.deps.limits?.().catch(() => null)) ?? null,
      });
      const current: Loaded = {
        tokenizer,
        model,
        spec,
        thinkOpenId: tokenIdOf(tokenizer, spec.thinkTokens?.open),
        thinkCloseId: tokenIdOf(tokenizer, spec.thinkTokens?.close),
        format,
        stop: stopIds(eos, format),
        window,
      };
      this.loaded = current;
      const checking = spec.trainerReference === true;
      const recommended = {
        ...recommendedFromGenerationConfig(generationConfig),
        ...spec.recommended,
      };
      emit({
        status: 'ready',
        data: {
          id: variant.id,
          dtype: variant.dtype,
          systemRole: format.systemRole,
          contextWindow: window,
          ...(Object.keys(recommended).length > 0 ? { recommended } : {}),
          ...(checking ? { checking } : {}),
        },
      });
      if (!checking) return none;
      const replay = this.replayReference(current, variant, emit).finally(() => {
        if (this.replaying === replay) this.replaying = null;
      });
      this.replaying = replay;
      return { replay };
    } catch (error) {
      const why = fallbackReason(spec, variant);
      const message = describeLoadError(error, spec.host);
      emit({ status: 'error', data: why ? `${why}. ${message}` : message, phase: 'load' });
      return none;
    }
  }

  /**
   * Generates a reply, streaming it through `emit`: `start`, `update`s (one per decoded piece of
   * text), then `complete` or `error`. One at a time; a request while another runs is refused.
   */
  async generate(call: GenerateCall, emit: (reply: EngineGenerationReply) => void): Promise<void> {
    // Right after a load the reference replay runs (16 tokens): a generation waits for it. A Stop
    // (or reset) pressed meanwhile still stops this reply.
    let stoppedWhileWaiting = false;
    if (this.replaying) {
      this.stopping.reset();
      await this.replaying;
      stoppedWhileWaiting = this.stopping.interrupted;
    }
    const loaded = this.loaded;
    if (!loaded) {
      emit({ status: 'error', data: 'No model is loaded.', phase: 'generate' });
      return;
    }
    if (this.generating) {
      emit({
        status: 'error',
        data: 'The model is busy with another reply; try again when it is done.',
        phase: 'generate',
      });
      return;
    }
    const { tokenizer, model, thinkOpenId, thinkCloseId, stop } = loaded;
    const { useCache, options } = call;
    const args = samplingArgs(options);
    let fitted: { prompt: Prompt; omitted: number };
    try {
      const fit = this.fit(loaded, call.messages, options, args.max_new_tokens);
      if ('error' in fit) {
        emit({ status: 'error', data: fit.error, phase: 'generate', tooLong: fit.tooLong });
        return;
      }
      fitted = fit;
    } catch (error) {
      emit({ status: 'error', data: describeLoadError(error), phase: 'generate' });
      return;
    }
    this.generating = true;
    let endGeneration = () => {};
    this.generationDone = new Promise<void>((resolve) => (endGeneration = resolve));
    this.stopping.reset();
    if (stoppedWhileWaiting) this.stopping.interrupt();
    let clock = new GenerationClock(0);
    const streamer = new TokenTextStreamer({
      decode: (ids) => tokenizer.decode(ids, { skip_special_tokens: true }),
      thinkOpenId,
      thinkCloseId,
      onToken: () => clock.token(),
      onText: (output, channel) =>
        emit({
          status: 'update',
          output,
          tps: clock.decodeTps() ?? undefined,
          numTokens: clock.numTokens,
          channel,
        }),
    });
    emit(fitted.omitted > 0 ? { status: 'start', omitted: fitted.omitted } : { status: 'start' });
    try {
      const inputs = fitted.prompt;
      const promptIds = firstRow(inputs.input_ids);
      clock = new GenerationClock(promptIds.length);
      const cache = useCache ? await this.turnCache.take(promptIds) : null;
      clock.cachedTokens = cache?.tokens ?? 0;
      const result = generateOutput(
        await model.generate({
          ...inputs,
          past_key_values: cache?.past ?? null,
          // The template's end of turn ends a reply even where the generation config omits it.
          ...(stop.length > 0 ? { eos_token_id: stop } : {}),
          ...args,
          streamer: new StreamerAdapter(tokenizer, streamer),
          stopping_criteria: this.stopping,
          return_dict_in_generate: true,
        }),
      );
      const interrupted = this.stopping.interrupted;
      // A stopped reply's cache is kept too: the next prompt keeps it as far as it matches.
      if (useCache) this.turnCache.keep(result);
      else disposeCacheOf(result);
      const stats = clock.finish();
      const lastId = result.sequences ? firstRow(result.sequences).at(-1) : undefined;
      const endedByModel = lastId !== undefined && stop.some((id) => BigInt(id) === lastId);
      const finish: FinishReason = interrupted
        ? 'stopped'
        : endedByModel || stats.numTokens < args.max_new_tokens
          ? 'end'
          : 'length';
      emit({
        status: 'complete',
        numTokens: stats.numTokens,
        seconds: stats.seconds,
        interrupted,
        stats,
        finish,
      });
    } catch (error) {
      if (useCache) this.turnCache.clear();
      emit({ status: 'error', data: describeLoadError(error), phase: 'generate' });
    } finally {
      this.generating = false;
      endGeneration();
    }
  }

  /** Stops the running generation after its current token (its reply completes as `stopped`). */
  interrupt(): void {
    this.stopping.interrupt();
  }

  /** A new conversation: stops a running generation and drops the KV cache. */
  reset(): void {
    // Clearing the KV cache on reset is the step the public demos forget.
    this.stopping.interrupt();
    this.turnCache.clear();
  }

  /** Frees the model and its cache (a load frees the previous model this way). */
  async dispose(): Promise<void> {
    this.turnCache.clear();
    const previous = this.loaded;
    this.loaded = null;
    if (!previous) return;
    this.deps.beforeRelease?.();
    await previous.model.dispose();
  }

  /**
   * The tokens the model sees for this conversation: the chat template rendered with the system
   * prompt (where the template takes it) and the generation prompt, tokenized by the model's own
   * tokenizer. Throws when no model is loaded.
   */
  countTokens(messages: ChatMessage[], options?: Pick<GenerateOptions, 'systemPrompt'>): number {
    const loaded = this.loaded;
    if (!loaded) throw new Error('No model is loaded.');
    return firstRow(this.promptOf(loaded, messages, options).input_ids).length;
  }

  /**
   * The tokens of the conversation with `draft` as its next message, and of the draft alone (with
   * the system prompt): what the chat shows under its input, and what it checks before a send.
   */
  countUsage(
    messages: ChatMessage[],
    draft: string,
    options?: Pick<GenerateOptions, 'systemPrompt'>,
  ): { tokens: number; draftTokens: number } {
    const next: ChatMessage[] = draft ? [{ role: 'user', content: draft }] : [];
    return {
      tokens: this.countTokens([...messages, ...next], options),
      draftTokens: this.countTokens(next, options),
    };
  }

  /**
   * The prompt that fits the window with its reply: the whole conversation, or its last turns
   * (context-window.ts fitToWindow), or why it is refused. Each candidate is tokenized once.
   */
  private fit(
    loaded: Loaded,
    messages: ChatMessage[],
    options: GenerateOptions | undefined,
    maxNewTokens: number,
  ): { prompt: Prompt; omitted: number } | { error: string; tooLong: TooLong } {
    const prompts = new Map<number, Prompt>();
    const promptFrom = (start: number) => {
      const known = prompts.get(start);
      if (known) return known;
      const prompt = this.promptOf(loaded, messages.slice(start), options);
      prompts.set(start, prompt);
      return prompt;
    };
    const fit = fitToWindow({
      messages,
      count: (kept) => firstRow(promptFrom(messages.length - kept.length).input_ids).length,
      maxNewTokens,
      window: loaded.window.tokens,
      keep: options?.continue ? 2 : 1,
      refuse: options?.whenTooLong === 'refuse',
    });
    if (!fit.ok) return { error: fit.error, tooLong: fit.tooLong };
    return { prompt: promptFrom(fit.omitted), omitted: fit.omitted };
  }

  /** The prompt's input ids and attention mask, as generate() takes them. */
  private promptOf(
    { tokenizer, format }: Loaded,
    messages: ChatMessage[],
    options: Pick<GenerateOptions, 'systemPrompt' | 'continue'> | undefined,
  ): Prompt {
    // Where the template has no system role, the prompt starts the first user message.
    const conversation = withSystemPrompt(messages, options?.systemPrompt, format);
    // Continue: the last reply is left open and the model writes on into it.
    return options?.continue
      ? tokenizer(continuationPrompt(tokenizer, conversation), { add_special_tokens: false })
      : tokenizer.apply_chat_template(conversation, {
          add_generation_prompt: true,
          return_dict: true,
        });
  }

  private async replayReference(
    current: Loaded,
    variant: { id: string; dtype: string },
    emit: (message: ReferenceResponse) => void,
  ): Promise<void> {
    const check = await this.checkReference(current, variant).catch(
      (error: unknown): ReferenceCheck => ({
        result: 'unavailable',
        reason: `the replay failed (${describeLoadError(error)})`,
      }),
    );
    emit({ status: 'reference', id: variant.id, dtype: variant.dtype, check });
  }

  /**
   * Replays export.json's reference with the variant that loaded: its prompt ids, greedy, exactly
   * `replaySteps` new tokens (a generation config of transformers.js's defaults: no end-of-sequence
   * stop, no penalty or forced token from the model's own config), then compares (reference-check.ts).
   */
  private async checkReference(
    current: Loaded,
    variant: { id: string; dtype: string },
  ): Promise<ReferenceCheck> {
    const reference = await readTrainerReference(
      { ...variant, host: current.spec.host },
      this.deps.reference,
    );
    if ('missing' in reference) return { result: 'unavailable', reason: reference.missing };
    const steps = replaySteps(reference);
    const length = reference.promptIds.length;
    this.replayStop.reset();
    const result = generateOutput(
      await current.model.generate({
        input_ids: new Tensor('int64', BigInt64Array.from(reference.promptIds, BigInt), [
          1,
          length,
        ]),
        attention_mask: new Tensor('int64', new BigInt64Array(length).fill(1n), [1, length]),
        generation_config: new GenerationConfig(new PretrainedConfig({})),
        max_new_tokens: steps,
        stopping_criteria: this.replayStop,
        return_dict_in_generate: true,
      }),
    );
    disposeCacheOf(result);
    if (this.replayStop.interrupted)
      return { result: 'unavailable', reason: 'another model was loaded before the check ended' };
    const generated = result.sequences ? firstRow(result.sequences).slice(length).map(Number) : [];
    return compareReplay(reference, generated, {
      dtype: variant.dtype,
      shaderF16: current.spec.shaderF16,
      decode: (id) => current.tokenizer.decode([id], { skip_special_tokens: false }),
    });
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
  disposeCacheOf(
    generateOutput(
      await model.generate({
        ...inputs,
        do_sample: false,
        max_new_tokens: 4,
        return_dict_in_generate: true,
      }),
    ),
  );
}
