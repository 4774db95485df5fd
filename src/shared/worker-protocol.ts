import type { StorageRequest, StorageResponse } from './storage-protocol';
import type { ReferenceCheck } from './reference-check';

/**
 * The messages exchanged with the LLM Web Worker.
 * Both directions are discriminated unions on `type` (out) and `status` (in). Responses are grouped by
 * owner — loading belongs to the model machine, a generation to whoever asked for it (its `purpose`),
 * a fault to everyone — so routing (src/machines/worker-events.ts) is checked by the compiler.
 */
import type { GenerationStats } from './generation-stats';
import type { GenerationSettings } from './generation-settings';
import type { ContextWindow, WindowFit } from './context-window';

/** A chat message. Any role other than 'assistant' is treated as 'user'. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What the worker needs to load a model: hub id, dtype and its f16-free fallback. */
export interface ModelLoadSpec {
  /** Repository id on the model host, e.g. `onnx-community/Llama-3.2-1B-Instruct-q4f16`. */
  id: string;
  /** Preferred dtype (q4f16 for the four spec models). */
  dtype: string;
  /** Used when the adapter lacks `shader-f16`: another repo and/or dtype, or none. */
  fallback?: { id: string; dtype: string } | undefined;
  /** Token ids that open/close a reasoning block (DeepSeek R1), decided by id not by text. */
  thinkTokens?: { open: string; close: string } | undefined;
  /** Weights are in an external-data file beside the .onnx graph. */
  externalData?: boolean | undefined;
  /** Base URL of the model host (default: the Hugging Face Hub). */
  host?: string | undefined;
  /** Whether the adapter reports `shader-f16`. */
  shaderF16: boolean;
  /** false: never reuse the previous turn's KV cache (an export known to mis-handle it). */
  reuseCache?: boolean | undefined;
  /** The model entry's recommended generation settings (they win over its generation config's). */
  recommended?: Partial<GenerationSettings> | undefined;
  /** The entry's label, for messages. */
  label?: string | undefined;
  /** Labels of the models that need no shader-f16 (named when this one cannot run here). */
  runsWithoutF16?: string[] | undefined;
  /**
   * Served by the training service with `export.json`: after the load the worker reads its
   * reference from `host` (never from anywhere else) and replays it (src/shared/reference-check.ts).
   */
  trainerReference?: boolean | undefined;
  /** The model entry's context limit, when lower than its config's (src/shared/context-window.ts). */
  contextLimit?: number | undefined;
}

/** Generation knobs posted with `generate` (see src/shared/generation-settings.ts). */
export interface GenerateOptions {
  maxNewTokens: number;
  /** 0 or absent = greedy. */
  temperature?: number | undefined;
  topP?: number | undefined;
  repetitionPenalty?: number | undefined;
  /** Sent as a system message before the conversation. */
  systemPrompt?: string | undefined;
  /**
   * Continue the last (assistant) message instead of starting a reply: the conversation is
   * rendered with that message left open and no generation prompt.
   */
  continue?: boolean | undefined;
  /**
   * When the conversation and its reply pass the model's window: leave out the oldest turns
   * (default) or refuse with the counts.
   */
  whenTooLong?: WhenTooLong | undefined;
}

/** What a turn past the model's window does: leave out the oldest turns, or refuse. */
export type WhenTooLong = 'drop-oldest' | 'refuse';

/** Why a generation was refused before it started: what is too long for the window. */
export type TooLong = Extract<WindowFit, { ok: false }>['tooLong'];

/**
 * Who asked for a generation: the chat, 'Format Input' running on the local model, or Compare
 * (`evaluation`). Responses of a generation carry it back so they reach the right owner. Only the
 * chat keeps a conversation in the KV cache; the others are one-off prompts that leave it alone.
 */
export type Purpose = 'chat' | 'dataset' | 'evaluation';

/** Main thread → worker. */
export type WorkerRequest =
  /** Posted once on start: the worker imports transformers.js early (WebGPU is probed on the page). */
  | { type: 'check' }
  | { type: 'load'; data: ModelLoadSpec }
  | {
      type: 'generate';
      data: ChatMessage[];
      options?: GenerateOptions;
      purpose?: Purpose;
      /** Set by the worker actor on every generation; each of its replies names it. */
      requestId?: number | undefined;
    }
  | { type: 'interrupt' }
  | { type: 'reset' }
  /**
   * How many tokens the model sees for the conversation with `draft` as the next message (and for
   * the draft alone), counted with its own template and tokenizer; `seq` comes back in the answer.
   */
  | {
      type: 'count';
      data: ChatMessage[];
      draft: string;
      options?: Pick<GenerateOptions, 'systemPrompt'> | undefined;
      seq: number;
    }
  | StorageRequest
  /**
   * Tests only: destroys the GPU device ONNX Runtime uses, so the e2e can provoke `device.lost`.
   * The worker ignores it unless the page was opened with `?debug` (see runtime-config).
   */
  | { type: 'debug.loseDevice' }
  /** Tests only (`?debug`): the worker closes itself, dying without an error event. */
  | { type: 'debug.close' };

/**
 * What the worker actor accepts besides requests to post: `abandon` (a machine waited too long)
 * terminates the silent Worker, starts a fresh one and reports a `fault` of kind `unresponsive`.
 * After any fault the actor holds a fresh Worker, so loading again needs no page reload.
 */
export type WorkerActorEvent = WorkerRequest | { type: 'abandon'; data: string };

/** Loading a model: owned by the model machine (`ready` also enables the chat). */
export type LoadResponse =
  | { status: 'loading'; data: string }
  | { status: 'initiate'; file: string; progress?: number; total?: number }
  | { status: 'progress'; file: string; progress: number; total?: number; loaded?: number }
  | { status: 'done'; file: string }
  | {
      status: 'ready';
      data?: {
        dtype: string;
        id: string;
        /** Recommended settings: the entry's, else its generation config's sampling (R1: 0.6, 0.95). */
        recommended?: Partial<GenerationSettings> | undefined;
        /** The template takes a system message (else the prompt starts the first user message). */
        systemRole?: boolean | undefined;
        /** The trainer's reference is replayed next: a `reference` message follows. */
        checking?: boolean | undefined;
        /** The usable context window and why it is what it is (src/shared/context-window.ts). */
        contextWindow?: ContextWindow | undefined;
      };
    }
  | { status: 'error'; data: string; phase: 'load' };

/**
 * The trainer's reference replayed on this GPU right after a load announced with `checking`
 * (owned by whoever loaded the model: the model machine, or a running evaluation). `id` and
 * `dtype` name the variant that was checked. A message sent meanwhile waits for it (16 tokens).
 */
export type ReferenceResponse = {
  status: 'reference';
  id: string;
  dtype: string;
  check: ReferenceCheck;
};

/** Why a generation ended: Stop, the token limit, or the model's end-of-sequence token. */
export type FinishReason = 'stopped' | 'length' | 'end';

/**
 * One generation: owned by the chat, 'Format Input' or Compare, according to `purpose`; each reply
 * names its request (`requestId`), and the worker actor drops a reply of a request that is no
 * longer the current one of its purpose.
 */
export type GenerationResponse = (
  | {
      status: 'start';
      /** How many of the conversation's first messages were left out to fit the window (absent: none). */
      omitted?: number | undefined;
      purpose?: Purpose;
    }
  | {
      status: 'update';
      /** Text since the previous update (the worker batches several tokens per message). */
      output: string;
      /** Decode tokens/s so far (see generation-stats.ts); absent before the second token. */
      tps?: number | undefined;
      numTokens: number;
      /** Which part of the answer the text belongs to (DeepSeek R1 reasoning vs answer). */
      channel: 'answer' | 'thinking';
      purpose?: Purpose;
    }
  | {
      status: 'complete';
      output?: string;
      numTokens: number;
      seconds: number;
      interrupted: boolean;
      /** Figures of the finished generation, defined once in generation-stats.ts. */
      stats?: GenerationStats | undefined;
      finish?: FinishReason | undefined;
      purpose?: Purpose;
    }
  | {
      status: 'error';
      data: string;
      phase: 'generate';
      /** Refused before it started: this is too long for the model's window. */
      tooLong?: TooLong | undefined;
      purpose?: Purpose;
    }
) & { requestId?: number | undefined };

/**
 * The worker (or its GPU) is gone: every owner stops waiting. `device-lost`: the worker saw
 * GPUDevice.lost; `crashed`: the Worker raised error/messageerror; `unresponsive`: no message (not even the
 * heartbeat) for the silence allowed by the machine that was waiting.
 */
export type FaultKind = 'device-lost' | 'crashed' | 'unresponsive';
export type FaultResponse = { status: 'fault'; kind: FaultKind; data: string };

/**
 * Sent every few seconds while the worker loads or generates (llm.worker.ts `HEARTBEAT_MS`): a
 * live worker is never silent for long, however slow its GPU, so silence means it is gone.
 */
export type HeartbeatResponse = { status: 'alive' };

/** The answer to `count` (owned by the chat): the tokens, or why they could not be counted. */
export type CountResponse =
  | { status: 'count'; seq: number; tokens: number; draftTokens: number }
  | { status: 'count'; seq: number; error: string };

/** Worker → main thread. Field names as in PRODUCT.md §3. Stored models and download plans: storage-protocol.ts. */
export type WorkerResponse =
  | LoadResponse
  | ReferenceResponse
  | GenerationResponse
  | FaultResponse
  | HeartbeatResponse
  | CountResponse
  | StorageResponse;

/** The message shown for a fault: says what happened and the way back. */
export function faultMessage(kind: FaultKind, detail: string): string {
  const why = detail.trim() ? `: ${detail.trim().replace(/\.$/, '')}.` : '.';
  switch (kind) {
    case 'device-lost':
      return `The GPU was lost${why} Load the model again.`;
    case 'crashed':
      return `The model worker crashed${why} Load the model again.`;
    case 'unresponsive':
      return `The model stopped responding${why} Load the model again.`;
  }
}
