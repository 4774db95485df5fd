/**
 * The mock service's answer to POST /train/plan: a plan computed from the dataset it holds, with
 * the trainer's rules where they are simple (entries over Max length left out, the held-out share,
 * steps from epochs or Max steps, the effective batch) and rough figures where the real trainer
 * needs the tokenizer and the model's config (about 4 characters a token; a 1.24B-parameter base).
 */
import type { DatasetEntry, PlanResponse, TrainRequest } from '../src/shared/training-api';
import { defaultFor } from '../src/shared/training-fields';

const PARAMETERS = 1_235_814_400;
const HIDDEN = 2048;
const LAYERS = 16;
const VOCAB = 128_256;
/** The mock trainer's device: the CPU of a 16 GiB machine. */
export const MOCK_DEVICE_MEMORY = 16 * 1024 ** 3;
/** The device as the trainer's plan names it on the CPU. */
const CPU_NAME = "this computer's memory (CPU)";

const num = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/** Rough token count of an entry once templated (about 4 characters a token, plus the template). */
export const mockTokens = (entry: DatasetEntry) =>
  Math.ceil((entry.prompt.length + entry.completion.length) / 4) + 12;

export function mockPlan(request: TrainRequest, entries: readonly DatasetEntry[]): PlanResponse {
  const method = request.method ?? 'lora';
  const lengths = entries.map(mockTokens);
  const tooLong = lengths.flatMap((n, i) => (n > request.max_len ? [i] : []));
  const usable = entries.length - tooLong.length;
  const fraction = num(request.eval_fraction, num(defaultFor('eval_fraction'), 0.1));
  const heldOut = fraction > 0 && usable > 1 ? Math.max(1, Math.round(usable * fraction)) : 0;
  const train = usable - heldOut;
  const batch = num(request.batch_size, 1);
  const effective = batch * num(request.grad_accum, 1);
  const steps =
    request.epochs !== undefined
      ? Math.max(1, Math.ceil((train * request.epochs) / effective))
      : request.max_steps;
  const sorted = [...lengths].sort((a, b) => a - b);
  const p95 = sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
  const longest = Math.max(0, ...lengths.filter((n) => n <= request.max_len));
  const rank = num(request.lora_r, 16);
  const trainable = method === 'lora' ? LAYERS * 7 * rank * 2 * HIDDEN : PARAMETERS;
  const checkpointing = request.gradient_checkpointing !== 'off';
  const weights = PARAMETERS * 4;
  const gradients = trainable * 4;
  const optimizer = trainable * (method === 'lora' ? 12 : 8);
  const tokens = batch * longest;
  const activations =
    (checkpointing ? LAYERS * HIDDEN * 4 + 40 * HIDDEN * 4 : LAYERS * 40 * HIDDEN * 4) * tokens +
    VOCAB * tokens * 16;
  return {
    plan: {
      entries: entries.length,
      train,
      held_out: heldOut,
      too_long: {
        count: tooLong.length,
        indices: tooLong,
        ...(tooLong.length
          ? {
              message: `${tooLong.length} of ${entries.length} entries are longer than ${request.max_len} tokens and were left out: raise Max length`,
            }
          : {}),
      },
      tokens: { max: Math.max(0, ...lengths), p95, over_max_len: tooLong.length },
      steps,
      epochs: train > 0 ? Math.round(((steps * effective) / train) * 100) / 100 : 0,
      effective_batch: effective,
      parameters: PARAMETERS,
      trainable_parameters: trainable,
      device: 'cpu',
      device_name: CPU_NAME,
      device_memory_bytes: MOCK_DEVICE_MEMORY,
      precision: 'fp32',
      gradient_checkpointing: checkpointing,
      memory: {
        total_bytes: weights + gradients + optimizer + activations,
        weights,
        gradients,
        optimizer,
        activations,
        note: `${method}, fp32, batch ${batch} × ${longest} tokens (mock figures)`,
      },
      disk: mockDisk(method, trainable),
    },
    device_memory_bytes: MOCK_DEVICE_MEMORY,
    device_name: CPU_NAME,
  };
}

/** The trainer's disk rule (training/plan.py estimate_disk); the mock knows no free space. */
function mockDisk(method: string, trainable: number): NonNullable<PlanResponse['plan']['disk']> {
  const checkpoint = trainable * 12;
  const result = PARAMETERS * 4 + (method === 'lora' ? trainable * 4 : 0);
  return {
    total_bytes: 2 * checkpoint + Math.max(checkpoint, result),
    checkpoint_bytes: checkpoint,
    checkpoints_kept: 2,
    free_bytes: null,
    fits: null,
  };
}
