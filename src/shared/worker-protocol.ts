import type { StorageRequest, StorageResponse } from './storage-protocol';

/**
 * The messages exchanged with the LLM Web Worker (spec section 3 and 7).
 * Both directions are discriminated unions on `type` (out) and `status` (in),
 * so every handler is checked for exhaustiveness by the compiler.
 */

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
}

/**
 * Who asked for a generation: the chat, or 'Format Input' running on the local model. Responses of a
 * generation carry it back so they reach the right owner.
 */
export type Purpose = 'chat' | 'dataset';

/** Main thread → worker. */
export type WorkerRequest =
  | { type: 'check' }
  | { type: 'load'; data: ModelLoadSpec }
  | { type: 'generate'; data: ChatMessage[]; options?: GenerateOptions; purpose?: Purpose }
  | { type: 'interrupt' }
  | { type: 'reset' }
  | StorageRequest;

/** Worker → main thread. Field names follow the spec's table. */
export type WorkerResponse =
  | { status: 'loading'; data: string }
  | { status: 'initiate'; file: string; progress?: number; total?: number }
  | { status: 'progress'; file: string; progress: number; total?: number; loaded?: number }
  | { status: 'done'; file: string }
  | { status: 'ready'; data?: { dtype: string; id: string } }
  | { status: 'start'; purpose?: Purpose }
  | {
      status: 'update';
      output: string;
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
      purpose?: Purpose;
    }
  | { status: 'error'; data: string; phase: 'check' | 'load' | 'generate'; purpose?: Purpose }
  | StorageResponse;

/** All statuses, handy for exhaustive tests. */
export type WorkerStatus = WorkerResponse['status'];
