/**
 * "Checked on this GPU": the trainer's reference, replayed in the browser after a trained model
 * loads. training/web_export.py writes in `web/export.json` (format 2 and later) the prompt's token ids,
 * PyTorch's greedy continuation from merged/ (`tokens[0]` is the argmax after the prompt) and the
 * top-1 minus top-2 logit at each step (`margins`), and per variant the `clear_margin` above
 * which a step is clear. The worker greedy-decodes the same prompt on the user's GPU with the
 * variant that loaded; only clear steps are compared (below the margin PyTorch's top two tokens
 * are near-ties that any runtime may order either way). Pure: the worker, the machines and the
 * views share it.
 */
import { isObject, isRecord, isUnknownArray } from './guards';
import { needsShaderF16 } from './storage';

/** How many tokens the page replays at most (16: a fraction of a second on a real GPU). */
export const REPLAY_STEPS = 16;

/** What the page replays for the variant that loaded, read from export.json. */
export interface TrainerReference {
  promptIds: number[];
  /** PyTorch's greedy tokens, the first `steps()` of them compared. */
  tokens: number[];
  /** PyTorch's top-1 lead over the runner-up at each step (logits). */
  margins: number[];
  /** A step is clear (compared) when its margin is at least this (the variant's tolerance). */
  clearMargin: number;
  /** The variants the export published, in its order (q4f16, q4, fp16, fp32). */
  published: string[];
}

/** A token of the replay: its id and, where the tokenizer gave it, its text. */
export interface ReplayToken {
  id: number;
  text?: string | undefined;
}

/** Where the replay first differs from PyTorch's tokens. */
export interface Divergence {
  /** 1-based: step 1 is the first generated token (`tokens[0]`). */
  step: number;
  /** PyTorch's token. */
  expected: ReplayToken;
  /** The token this GPU chose. */
  got: ReplayToken;
  /** PyTorch's top-1 lead at that step. */
  lead: number;
}

/**
 * The outcome of a replay, as the worker reports it and the machines keep it:
 * - `agreed`: every clear step agreed (`split`: a near-tie step went the other way and the
 *   sequences parted there, so later steps were not compared);
 * - `diverged`: a clear step chose another token (the first one is named);
 * - `inconclusive`: no clear step came before the replay ended or parted at a near-tie;
 * - `unavailable`: nothing was checked (no reference in the export, export.json unreadable, the
 *   replay failed or was stopped by another load).
 */
export type ReferenceCheck =
  | { result: 'agreed'; dtype: string; steps: number; compared: number; split?: Divergence }
  | {
      result: 'diverged';
      dtype: string;
      steps: number;
      compared: number;
      divergence: Divergence;
      /** A variant to try instead (published and runnable on this GPU), or null. */
      alternative: string | null;
    }
  | { result: 'inconclusive'; dtype: string; steps: number; split?: Divergence }
  | { result: 'unavailable'; reason: string };

/** The check while the worker replays (the machines hold it until the outcome arrives). */
export const CHECKING = { result: 'checking' } as const;
/** A model's check as shown: running, its outcome, or null (nothing to check). */
export type CheckStatus = ReferenceCheck | typeof CHECKING | null;

const isNumberArray = (value: unknown): value is number[] =>
  isUnknownArray(value) && value.every((n) => typeof n === 'number' && Number.isFinite(n));

/**
 * The reference for `dtype` from a parsed export.json, or why there is none (a sentence that
 * follows "Not checked on this GPU: ").
 */
export function parseTrainerReference(
  report: unknown,
  dtype: string,
): TrainerReference | { missing: string } {
  if (!isRecord(report)) return { missing: 'export.json is not a JSON object' };
  const { reference, variants, published } = report;
  if (reference === undefined)
    return { missing: 'this export has no reference to replay (it was made before the check)' };
  if (!isRecord(reference)) return { missing: "export.json's reference is malformed" };
  const { prompt_ids, tokens, margins } = reference;
  if (!isNumberArray(prompt_ids) || prompt_ids.length === 0 || !isNumberArray(tokens))
    return { missing: "export.json's reference is malformed" };
  if (!isNumberArray(margins) || margins.length < Math.min(tokens.length, REPLAY_STEPS))
    return { missing: "export.json's reference has no margins" };
  const variant = isRecord(variants) ? variants[dtype] : undefined;
  const tolerance = isRecord(variant) ? variant.tolerance : undefined;
  const clearMargin = isObject(tolerance) ? tolerance.clear_margin : undefined;
  if (typeof clearMargin !== 'number' || !Number.isFinite(clearMargin))
    return { missing: `export.json has no tolerance for the ${dtype} variant` };
  return {
    promptIds: prompt_ids,
    tokens,
    margins,
    clearMargin,
    published: isUnknownArray(published) ? published.filter((v) => typeof v === 'string') : [],
  };
}

/** How many tokens to replay: min(REPLAY_STEPS, the reference's length). */
export function replaySteps(reference: Pick<TrainerReference, 'tokens'>): number {
  return Math.min(REPLAY_STEPS, reference.tokens.length);
}

/** Which variant to suggest after a divergence: the nearest one, in this order. */
const NEAREST: Record<string, readonly string[]> = {
  q4f16: ['q4', 'fp16', 'fp32'],
  q4: ['q4f16', 'fp32', 'fp16'],
  fp16: ['fp32', 'q4f16', 'q4'],
  fp32: ['fp16', 'q4', 'q4f16'],
};

/**
 * The variant to try when `loaded` disagreed: the nearest one the export published that this GPU
 * runs (nothing needing shader-f16 without it), or null.
 */
export function alternativeVariant(
  published: readonly string[],
  loaded: string,
  shaderF16: boolean,
): string | null {
  const runs = (v: string) =>
    v !== loaded && published.includes(v) && (shaderF16 || !needsShaderF16(v));
  const order = [...(NEAREST[loaded] ?? []), ...published];
  return order.find(runs) ?? null;
}

/**
 * Compares the tokens this GPU generated with PyTorch's, step by step: a clear step that differs
 * is a divergence; a near-tie that differs ends the comparison (the two sequences part there, so
 * the later steps would compare different prompts).
 */
export function compareReplay(
  reference: TrainerReference,
  generated: readonly number[],
  options: {
    dtype: string;
    shaderF16: boolean;
    /** The text of a token (the tokenizer's), for the message. */
    decode?: ((id: number) => string) | undefined;
  },
): ReferenceCheck {
  const { dtype, decode } = options;
  const steps = Math.min(replaySteps(reference), generated.length);
  const token = (id: number): ReplayToken => ({ id, ...(decode ? { text: decode(id) } : {}) });
  let compared = 0;
  for (let i = 0; i < steps; i++) {
    const expected = reference.tokens[i];
    const got = generated[i];
    const lead = reference.margins[i];
    if (expected === undefined || got === undefined || lead === undefined) break;
    const clear = lead >= reference.clearMargin;
    if (got !== expected) {
      const divergence: Divergence = {
        step: i + 1,
        expected: token(expected),
        got: token(got),
        lead,
      };
      if (clear)
        return {
          result: 'diverged',
          dtype,
          steps,
          compared: compared + 1,
          divergence,
          alternative: alternativeVariant(reference.published, dtype, options.shaderF16),
        };
      return compared === 0
        ? { result: 'inconclusive', dtype, steps, split: divergence }
        : { result: 'agreed', dtype, steps, compared, split: divergence };
    }
    if (clear) compared += 1;
  }
  return compared === 0
    ? { result: 'inconclusive', dtype, steps }
    : { result: 'agreed', dtype, steps, compared };
}
