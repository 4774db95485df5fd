/**
 * The training service's API: request/response schemas and types, the one module shared by the
 * service (service/src), the browser client (src/actors/training-client.ts) and the MSW handlers
 * (mocks/training-handlers.ts), so the three cannot drift. `zod/mini` keeps it small on the
 * browser's main thread.
 */
import * as z from 'zod/mini';
import { basicDefaults, defaultFor, trainingOptionShape } from './training-fields';

/** The four training values the app sends with every run (PRODUCT.md §6) (the table's basic defaults). */
export const TRAINING_PARAMS = basicDefaults('lora');
/** How a run trains: LoRA adapters on every linear layer, or every weight of the model. */
export const TRAINING_METHODS = ['lora', 'full'] as const;
export type TrainingMethod = (typeof TRAINING_METHODS)[number];
/** The trainer's default share of held-out entries (`eval_fraction`). */
export const DEFAULT_EVAL_FRACTION = Number(defaultFor('eval_fraction'));
/** The default base model: a 3B-parameter instruct model from the Hub. */
export const DEFAULT_BASE_MODEL = 'meta-llama/Llama-3.2-3B-Instruct';
export { DEFAULT_TRAINING_URL } from './training-url';
/** The browser asks for the last 10 log lines (every 2 s: the training machine's `pollInterval`). */
export const LOG_TAIL = 10;
/** The most lines one logs request returns (tail or page). */
export const MAX_LOG_LINES = 1000;

type Issue = z.core.$ZodIssue;

const isMissing = (iss: { input?: unknown }) => iss.input === undefined;

/** A path or name argument: non-empty, bounded, no NUL/control characters, never an option. */
function argText(what: string, max = 4096) {
  return z
    .string({ error: (iss) => (isMissing(iss) ? 'is required' : `must be a string (${what})`) })
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
      z.refine((s) => !s.startsWith('--'), 'must not begin with "--" (it would read as an option)'),
      // eslint-disable-next-line no-control-regex
      z.refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters'),
    );
}

/** The longest Hub token a start request may carry. */
const HUB_TOKEN_MAX = 256;

/**
 * POST /train body (and POST /train/plan's): the paths, then every option of the training table
 * (training-fields.json: required ones required, each with its range). Unknown fields are rejected.
 */
export const TrainRequestSchema = z.strictObject({
  script_path: argText('a path'),
  output_dir: argText('a path'),
  data_file: argText('a path'),
  base_model: argText('a model id or path', 512),
  ...trainingOptionShape(),
  /**
   * A Hugging Face access token for this run only (a gated or private base): the service gives it
   * to the trainer as HF_TOKEN and never stores, logs or returns it. Messages never echo it.
   */
  hub_token: z.optional(
    z
      .string({ error: 'must be a string (a Hub access token, hf_…)' })
      .check(
        z.maxLength(HUB_TOKEN_MAX, `must be at most ${HUB_TOKEN_MAX} characters`),
        z.regex(
          /^hf_[A-Za-z0-9_-]{4,}$/,
          'must be a Hub access token: hf_ followed by letters, digits, "_" or "-" (from https://huggingface.co/settings/tokens)',
        ),
      ),
  ),
});
export type TrainRequest = z.infer<typeof TrainRequestSchema>;

export const TrainResponseSchema = z.object({ run_id: z.string() });
export type TrainResponse = z.infer<typeof TrainResponseSchema>;

/**
 * What a run would do (the trainer's `--plan` output): entries trained on and held out, the
 * entries' token lengths and those over Max length (left out), steps and epochs, the effective
 * batch, parameters, and the estimated peak memory. Extra keys are tolerated (and dropped).
 */
export const TrainingPlanSchema = z.object({
  entries: z.number(),
  train: z.number(),
  held_out: z.number(),
  too_long: z.object({
    count: z.number(),
    indices: z.array(z.number()),
    /** "3 of 40 entries are longer than 256 tokens and were left out: raise Max length". */
    message: z.optional(z.string()),
  }),
  tokens: z.object({ max: z.number(), p95: z.number(), over_max_len: z.number() }),
  steps: z.number(),
  epochs: z.number(),
  effective_batch: z.number(),
  parameters: z.nullable(z.number()),
  trainable_parameters: z.nullable(z.number()),
  device: z.string(),
  /** The device readably ("NVIDIA H100 80GB HBM3", "this computer's memory (CPU)"), when given. */
  device_name: z.optional(z.string()),
  precision: z.string(),
  gradient_checkpointing: z.boolean(),
  /** The device's memory as the trainer reads it (a GPU's, or the machine's RAM), when known. */
  device_memory_bytes: z.optional(z.nullable(z.number())),
  memory: z.object({
    total_bytes: z.number(),
    weights: z.optional(z.number()),
    gradients: z.optional(z.number()),
    optimizer: z.optional(z.number()),
    activations: z.optional(z.number()),
    /** What the estimate assumes ("lora, fp32, batch 1 × 180 tokens, …"). */
    note: z.optional(z.string()),
  }),
  /**
   * The disk the run writes at its peak (the kept checkpoints and the next, or the result)
   * against what is free where it saves; free and fits are null when unknown.
   */
  disk: z.optional(
    z.object({
      total_bytes: z.number(),
      checkpoint_bytes: z.number(),
      checkpoints_kept: z.number(),
      free_bytes: z.nullable(z.number()),
      fits: z.nullable(z.boolean()),
    }),
  ),
});
export type TrainingPlan = z.infer<typeof TrainingPlanSchema>;

/**
 * POST /train/plan response: the plan, and the memory of the device it would run on (as the
 * trainer read it, else the machine's RAM on the CPU; null when unknown) and the device's name.
 */
export const PlanResponseSchema = z.object({
  plan: TrainingPlanSchema,
  device_memory_bytes: z.nullable(z.number()),
  device_name: z.nullable(z.string()),
});
export type PlanResponse = z.infer<typeof PlanResponseSchema>;

/** Run ids are generated by the service; anything else is rejected before any lookup. */
export const RunParamsSchema = z.object({
  id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a valid run id')),
});

/** A query-string integer: digits only (no '1e3', no '0x10'), then range-checked. */
function queryInt(min: number, max: number) {
  return z.optional(
    z.pipe(
      z.pipe(
        z.string().check(z.regex(/^-?\d{1,12}$/, 'must be an integer')),
        z.transform((s) => Number(s)),
      ),
      z
        .int()
        .check(
          z.gte(min, `must be at least ${min}`),
          z.lte(max, `must be at most ${max.toLocaleString('en-US')}`),
        ),
    ),
  );
}

/**
 * GET /logs/{id} query: `tail=N` (last N lines, 1–1000) or the cursor form `offset=K&limit=L`
 * (lines K…K+L-1 of the committed log). Other parameters (cache busters) are ignored.
 */
export const LogsQuerySchema = z.object({
  tail: queryInt(1, MAX_LOG_LINES),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER),
  limit: queryInt(1, MAX_LOG_LINES),
});
export type LogsQuery = z.infer<typeof LogsQuerySchema>;

/**
 * GET /logs/{id} response. PRODUCT.md §5: `lines`. Beyond it: `total` committed lines so far and
 * `next_offset`, the cursor for the next page (offset form) or the end of the log (tail form).
 */
export const LogsResponseSchema = z.object({
  lines: z.array(z.string()),
  total: z.optional(z.number()),
  next_offset: z.optional(z.number()),
});
export type LogsResponse = z.infer<typeof LogsResponseSchema>;

export const RUN_STATES = ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;

/**
 * What a running run is doing: `training` (steps going), `saving` (the last step is printed, the
 * process still runs: show 100 % and "Saving…"), `cancelling` (cancel sent, processes ending).
 * `null` once the run has ended.
 */
export const RUN_PHASES = ['training', 'saving', 'cancelling'] as const;

/** GET /runs/{id}: what a run is doing or how it ended. */
export const RunInfoSchema = z.object({
  id: z.string(),
  state: z.enum(RUN_STATES),
  phase: z.nullable(z.enum(RUN_PHASES)),
  exit_code: z.nullable(z.number()),
  signal: z.nullable(z.string()),
  current: z.nullable(z.number()),
  total: z.nullable(z.number()),
  /** Percentage with two decimals, 0–100, never decreasing while the run lives. */
  progress: z.number(),
  started_at: z.string(),
  ended_at: z.nullable(z.string()),
  /** ended_at (or now, while running) minus started_at, in milliseconds. */
  duration_ms: z.number(),
  script_path: z.string(),
  base_model: z.string(),
  output_dir: z.string(),
  data_file: z.string(),
  /** The last loss the trainer printed (HF log dict or JSON line), null before the first. */
  last_loss: z.nullable(z.number()),
  /** Metric points recognised so far (GET /runs/{id}/metrics). */
  metrics_count: z.number(),
  /** The id of its browser-ready model in GET /models (`trained/<folder>`), when complete. */
  model_id: z.nullable(z.string()),
  /** Why a finished run has no browser-ready model ("web/ lacks tokenizer.json"), else null. */
  model_error: z.nullable(z.string()),
  /** Why the run failed to start, failed, or was interrupted, when the service knows. */
  error: z.optional(z.string()),
  /** `lora` or `full` (runs recorded before methods existed: `lora`). */
  method: z.optional(z.enum(TRAINING_METHODS)),
  /** The browser export of the untouched base model (`export_base`), when complete. */
  base_model_id: z.optional(z.nullable(z.string())),
  /** The last held-out loss the trainer printed, null before the first (or none held out). */
  last_eval_loss: z.optional(z.nullable(z.number())),
  /** The training options the run was started with (training-fields.json names), as sent. */
  options: z.optional(z.record(z.string(), z.union([z.number(), z.string(), z.boolean()]))),
  /** sha256 of the data file when the run started: a resume refuses a file that changed since. */
  data_sha256: z.optional(z.nullable(z.string())),
  /** The step of the newest complete checkpoint in `<output_dir>/checkpoints/` when it ended. */
  checkpoint_step: z.optional(z.nullable(z.number())),
  /** It failed, was cancelled or interrupted, and has a checkpoint: POST /runs/{id}/resume. */
  resumable: z.optional(z.boolean()),
});
export type RunInfo = z.infer<typeof RunInfoSchema>;

/** A run the moment it starts: running its training phase, nothing measured or ended yet. */
export function startingRunInfo(
  id: string,
  run: Pick<RunInfo, 'script_path' | 'base_model' | 'output_dir' | 'data_file' | 'started_at'>,
): RunInfo {
  return {
    id,
    state: 'running',
    phase: 'training',
    exit_code: null,
    signal: null,
    current: null,
    total: null,
    progress: 0,
    ended_at: null,
    duration_ms: 0,
    last_loss: null,
    metrics_count: 0,
    model_id: null,
    model_error: null,
    ...run,
  };
}

/** States a run can be resumed from (given a checkpoint): it ended without its result. */
export const RESUMABLE_STATES: readonly (typeof RUN_STATES)[number][] = [
  'failed',
  'cancelled',
  'interrupted',
];

/** GET /runs: newest first; `active` is the running run's id (attach to it), or null. */
export const RunListSchema = z.object({
  runs: z.array(RunInfoSchema),
  active: z.nullable(z.string()),
});
export type RunList = z.infer<typeof RunListSchema>;

/** Most metric points one run keeps (older ones are thinned evenly beyond this). */
export const MAX_METRIC_POINTS = 100_000;

/**
 * One metric point: `seq` orders points (the cursor for `after`), `step` is the trainer's step
 * (from the dict's `step`, else the last `current/total` printed), `time` seconds since the run
 * started. Missing values are null.
 */
export const MetricPointSchema = z.object({
  seq: z.number(),
  step: z.number(),
  loss: z.number(),
  learning_rate: z.nullable(z.number()),
  epoch: z.nullable(z.number()),
  grad_norm: z.nullable(z.number()),
  time: z.number(),
});
export type MetricPoint = z.infer<typeof MetricPointSchema>;

/**
 * One held-out loss: the mean completion loss on the entries kept out of training. `seq` orders
 * them (the cursor for `eval_after`), counted apart from the loss points' `seq`.
 */
export const EvalPointSchema = z.object({
  seq: z.number(),
  step: z.number(),
  loss: z.number(),
  time: z.number(),
});
export type EvalPoint = z.infer<typeof EvalPointSchema>;

/**
 * GET /runs/{id}/metrics query: `after=SEQ` returns only newer loss points, `eval_after=SEQ` only
 * newer held-out points (live polling sends each point once).
 */
export const MetricsQuerySchema = z.object({
  after: queryInt(-1, Number.MAX_SAFE_INTEGER),
  eval_after: queryInt(-1, Number.MAX_SAFE_INTEGER),
});
export type MetricsQuery = z.infer<typeof MetricsQuerySchema>;

/**
 * GET /runs/{id}/metrics response. `next` is the `after` value for the next poll (the last seq
 * held, or the request's `after` when nothing is new); `seen` counts every point recognised;
 * `stride` > 1 means older points were thinned to stay within {@link MAX_METRIC_POINTS}.
 */
export const MetricsResponseSchema = z.object({
  points: z.array(MetricPointSchema),
  next: z.number(),
  seen: z.number(),
  stride: z.number(),
  /** Held-out loss points (`{"eval_loss": …, "step": …}` lines) after `eval_after`, oldest first. */
  eval: z.optional(z.array(EvalPointSchema)),
});
export type MetricsResponse = z.infer<typeof MetricsResponseSchema>;

/** transformers.js dtype names for the ONNX variants a trained model may ship. */
export const MODEL_VARIANTS = [
  'fp32',
  'fp16',
  'q4',
  'q4f16',
  'q8',
  'int8',
  'uint8',
  'bnb4',
] as const;
export type ModelVariant = (typeof MODEL_VARIANTS)[number];

/** Owner part of every trained model's Hub-style id: `trained/<name>`. */
export const TRAINED_MODEL_OWNER = 'trained';

/**
 * GET /models entry: a finished run whose `<output_dir>/web/` is complete. Files are served at
 * `{service}/{id}/resolve/main/{file}` (the Hub's layout, so transformers.js loads it with
 * `env.remoteHost = service + '/'`).
 */
export const TrainedModelSchema = z.object({
  /** `trained/<output folder name>` (a suffix `-<run id prefix>` when two runs share a name). */
  id: z.string(),
  /** The output folder's name, for labels: "harbour-run (fine-tuned)". */
  name: z.string(),
  run_id: z.string(),
  base_model: z.string(),
  output_dir: z.string(),
  variants: z.array(z.enum(MODEL_VARIANTS)),
  /** Bytes of every file under web/. */
  bytes: z.number(),
  /** When the run ended (ISO). */
  created_at: z.string(),
  /** `fine-tuned` (the run's result) or `base` (the untouched base, exported to compare with). */
  role: z.optional(z.enum(['fine-tuned', 'base'])),
});
export type TrainedModel = z.infer<typeof TrainedModelSchema>;

export const ModelListSchema = z.object({ models: z.array(TrainedModelSchema) });
export type ModelList = z.infer<typeof ModelListSchema>;

/** The GGUF types the trainer writes (training/gguf_export.py). */
export const GGUF_TYPES = ['F16', 'Q8_0'] as const;

/**
 * One GGUF file of a run's `gguf/export.json`: published (checked in llama.cpp, downloadable) or
 * left out (`failure` says why; the file itself was removed). The figures are llama.cpp's check.
 */
export const GgufFileSchema = z.object({
  name: z.string(),
  type: z.enum(GGUF_TYPES),
  bytes: z.nullable(z.number()),
  passed: z.boolean(),
  failure: z.nullable(z.string()),
  /** Clear-margin steps where llama.cpp's top token was PyTorch's, of those compared. */
  tokens_agreed: z.nullable(z.number()),
  tokens_compared: z.nullable(z.number()),
  max_abs_diff: z.nullable(z.number()),
});
export type GgufFile = z.infer<typeof GgufFileSchema>;

/**
 * GGUF export states: none asked for or written yet, being written (asked after the run: POST
 * /runs/{id}/exports), written (≥ 1 file published), or skipped.
 */
export const GGUF_EXPORT_STATES = ['none', 'writing', 'written', 'skipped'] as const;

/** The GGUF types an export can be asked for (training option `gguf` without `none`). */
export const GGUF_CHOICES = ['Q8_0', 'F16', 'both'] as const;

/** POST /runs/{id}/exports: the formats to write from the run's merged model. */
export const ExportRequestSchema = z.strictObject({ gguf: z.enum(GGUF_CHOICES) });
export type ExportRequest = z.infer<typeof ExportRequestSchema>;

/**
 * PUT /runs/{id}/evaluation's answer: compare.json written, and the card's state — `rewritten`
 * with the scores, or `kept` (the card as it was, `reason` saying why: e.g. a run from before the
 * card kept its record).
 */
export const RunEvaluationResultSchema = z.object({
  run_id: z.string(),
  card: z.enum(['rewritten', 'kept']),
  reason: z.nullable(z.string()),
});
export type RunEvaluationResult = z.infer<typeof RunEvaluationResultSchema>;

/** The folders a run's archive downloads pack: the LoRA adapter, the merged model. */
export const ARCHIVE_KINDS = ['adapter', 'merged'] as const;
export type ArchiveKind = (typeof ARCHIVE_KINDS)[number];

/** One archive download: a zip of a folder of the run's output, or why there is none. */
export const RunArchiveSchema = z.object({
  kind: z.enum(ARCHIVE_KINDS),
  /** The zip's file name when it can be downloaded, e.g. "run-3-merged.zip"; else null. */
  name: z.nullable(z.string()),
  /** The zip's exact size in bytes (its Content-Length); null when there is none. */
  bytes: z.nullable(z.number()),
  /** How many files it holds. */
  files: z.number(),
  /** Why it cannot be downloaded; null when it can. */
  reason: z.nullable(z.string()),
  /**
   * The adapter's check with PEFT (the trainer's adapter.check.json: loaded over the base, its
   * logits compared with merged/'s): null for the merged model and for a run from before the check.
   */
  check: z.nullable(
    z.object({
      ok: z.boolean(),
      /** The largest logit difference from merged/'s; null when the check could not run. */
      max_logit_difference: z.nullable(z.number()),
      /** Why it failed; null when ok. */
      reason: z.nullable(z.string()),
    }),
  ),
});
export type RunArchive = z.infer<typeof RunArchiveSchema>;

/** GET /runs/{id}/exports: what the run's output folder holds for export. */
export const RunExportsSchema = z.object({
  /** The adapter and the merged model as zip downloads (ARCHIVE_KINDS' order). */
  archives: z.array(RunArchiveSchema),
  gguf: z.object({
    state: z.enum(GGUF_EXPORT_STATES),
    /** Why there is none (state none) or why none was kept (skipped); null when written. */
    reason: z.nullable(z.string()),
    files: z.array(GgufFileSchema),
    /** The Ollama Modelfile beside the published files, when one was written. */
    modelfile: z.nullable(z.object({ name: z.string(), bytes: z.number() })),
    /** Why no Modelfile was written beside published files. */
    modelfile_skipped: z.nullable(z.string()),
  }),
});
export type RunExports = z.infer<typeof RunExportsSchema>;
export type GgufExports = RunExports['gguf'];

/** GET|HEAD /runs/{id}/exports/gguf/{file}: a run id and a file name. */
export const ExportFileParamsSchema = z.extend(RunParamsSchema, { file: z.string() });

/** GET|HEAD /runs/{id}/exports/archive/{kind}: a run id and which folder. */
export const ExportArchiveParamsSchema = z.extend(RunParamsSchema, { kind: z.enum(ARCHIVE_KINDS) });

/** Every endpoint of the service (GET / lists them; the mock answers the same). */
export const SERVICE_ENDPOINTS = [
  'GET /',
  'GET /health',
  'POST /train',
  'POST /train/plan',
  'GET /runs',
  'GET /runs/{run_id}',
  'GET /runs/{run_id}/metrics',
  'GET /runs/{run_id}/split',
  'GET /runs/{run_id}/dataset',
  'GET /runs/{run_id}/exports',
  'POST /runs/{run_id}/exports',
  'PUT /runs/{run_id}/evaluation',
  'GET|HEAD /runs/{run_id}/exports/gguf/{file}',
  'GET|HEAD /runs/{run_id}/exports/archive/{kind}',
  'POST /runs/{run_id}/cancel',
  'POST /runs/{run_id}/resume',
  'GET /logs/{run_id}',
  'PUT /datasets/{name}',
  'GET /models',
  'GET|HEAD /trained/{name}/resolve/main/{file}',
  'GET /trainer',
  'POST /trainer/setup',
  'GET /trainer/setup',
  'GET /hub-cache',
  'DELETE /hub-cache/models/{org}/{name}',
] as const;

/** GET /: who answers, and where the API is documented. */
export const ServiceInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  docs: z.string(),
  endpoints: z.array(z.string()),
});
export type ServiceInfo = z.infer<typeof ServiceInfoSchema>;

/** PUT /datasets/{name}: letters, digits, '.', '_', '-'; '.json' is added when missing. */
export const DatasetParamsSchema = z.object({
  name: z.string().check(
    z.regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
      'must be 1–100 letters, digits, ".", "_" or "-", starting with a letter or digit',
    ),
    z.refine((s) => !s.includes('..'), 'must not contain ".."'),
  ),
});

/** A dataset entry is a prompt and its completion. */
export const DatasetEntrySchema = z.object({
  prompt: z.string({ error: (iss) => (isMissing(iss) ? 'is required' : 'must be a string') }),
  completion: z.string({ error: (iss) => (isMissing(iss) ? 'is required' : 'must be a string') }),
});
export type DatasetEntry = z.infer<typeof DatasetEntrySchema>;

/** One turn of a chat-format entry. */
export const ChatTurnSchema = z.object({
  role: z.enum(['system', 'user', 'assistant'], {
    error: (iss) => (isMissing(iss) ? 'is required' : 'must be "system", "user" or "assistant"'),
  }),
  content: z.string({ error: (iss) => (isMissing(iss) ? 'is required' : 'must be a string') }),
});

/**
 * A chat-format entry, as the ecosystem's datasets write them: `{"messages": [{role, content}, …]}`,
 * multi-turn; the trainer learns every assistant turn, so one is required.
 */
export const MessagesEntrySchema = z.object({
  messages: z
    .array(ChatTurnSchema, {
      error: (iss) => (isMissing(iss) ? 'is required' : 'must be a list of {role, content} turns'),
    })
    .check(
      z.minLength(1, 'must hold at least one turn'),
      z.refine(
        (turns) => turns.some((turn) => turn.role === 'assistant'),
        'has no assistant turn (nothing to learn)',
      ),
    ),
});

/**
 * What a training data file holds, entry by entry (training/train_data.py reads the same two
 * shapes): a chat-format entry when it has `messages`, else a `{prompt, completion}` pair
 * (formatIssues reports the shape the entry chose).
 */
export const TrainingEntrySchema = z.union([MessagesEntrySchema, DatasetEntrySchema]);
export type TrainingEntry = z.infer<typeof TrainingEntrySchema>;

/** PUT /datasets/{name}'s body: a JSON array of training entries. */
export const DatasetSchema = z
  .array(TrainingEntrySchema, {
    error: 'must be a JSON array of {prompt, completion} or {messages} entries',
  })
  .check(z.minLength(1, 'must hold at least one entry'));

/**
 * A training entry as the Compare view asks it (the trainer's split.json does the same): the
 * last assistant turn and the user turn before it.
 */
export function asPromptCompletion(entry: TrainingEntry): DatasetEntry {
  if (!('messages' in entry)) return { prompt: entry.prompt, completion: entry.completion };
  const turns = entry.messages;
  const last = turns.map((turn) => turn.role).lastIndexOf('assistant');
  const user = turns
    .slice(0, last)
    .reverse()
    .find((turn) => turn.role === 'user');
  return { prompt: user?.content ?? '', completion: turns[last]?.content ?? '' };
}

/** The largest dataset PUT /datasets/{name} takes by default (TRAINING_DATASET_LIMIT), bytes. */
export const DATASET_LIMIT_BYTES = 20 * 1024 * 1024;

export const DatasetResponseSchema = z.object({ path: z.string(), entries: z.number() });
export type DatasetResponse = z.infer<typeof DatasetResponseSchema>;

/**
 * GET /runs/{id}/split: the entries the trainer held out (`<output_dir>/split.json`). 404 when
 * the run wrote none (`eval_fraction` 0, or an older run), 422 when the file is malformed.
 */
export const RunSplitSchema = z.object({
  held_out: z.array(DatasetEntrySchema),
  held_out_indices: z.array(z.number()),
  train_count: z.number(),
  seed: z.nullable(z.number()),
});
export type RunSplit = z.infer<typeof RunSplitSchema>;

/** GET /runs/{id}/dataset: every entry of the run's data file (422 when it no longer parses). */
export const RunDatasetSchema = z.object({ entries: z.array(DatasetEntrySchema) });
export type RunDataset = z.infer<typeof RunDatasetSchema>;

/** The trainer's Python packages, as `GET /trainer` reports them (version, or null: missing). */
export const TRAINER_PACKAGES = [
  'torch',
  'transformers',
  'peft',
  'accelerate',
  'onnx',
  'onnxruntime',
  'onnx-ir',
] as const;

/** Where a run would compute: CUDA GPUs (name, memory), Apple's MPS, or the CPU alone. */
export const TrainerDeviceSchema = z.object({
  kind: z.enum(['cuda', 'mps', 'cpu']),
  gpus: z.array(z.object({ name: z.string(), memory_bytes: z.nullable(z.number()) })),
});

export const SETUP_STATES = ['idle', 'running', 'succeeded', 'failed'] as const;

/** The trainer environment's set-up (POST /trainer/setup), one at a time. */
export const TrainerSetupSchema = z.object({
  state: z.enum(SETUP_STATES),
  exit_code: z.nullable(z.number()),
  /** Every line the set-up printed so far (pip's output), oldest first. */
  lines: z.array(z.string()),
  started_at: z.nullable(z.string()),
  ended_at: z.nullable(z.string()),
  /** Why it failed, in one sentence (e.g. python3-venv is missing). */
  error: z.nullable(z.string()),
});
export type TrainerSetup = z.infer<typeof TrainerSetupSchema>;

/** A set-up that never ran: what the service and the mock answer before the first one. */
export function idleTrainerSetup(): TrainerSetup {
  return {
    state: 'idle',
    exit_code: null,
    lines: [],
    started_at: null,
    ended_at: null,
    error: null,
  };
}

/**
 * GET /trainer: the interpreter runs would use, each required package's version (null: missing),
 * `missing` (names; empty when ready), the device, and the set-up's state.
 */
export const TrainerInfoSchema = z.object({
  python: z.nullable(z.string()),
  python_version: z.nullable(z.string()),
  /** `.venv` (the project's environment), `TRAINING_PYTHON`, or `system`. */
  source: z.enum(['venv', 'env', 'system']),
  packages: z.record(z.string(), z.nullable(z.string())),
  missing: z.array(z.string()),
  device: z.nullable(TrainerDeviceSchema),
  setup: TrainerSetupSchema,
});
export type TrainerInfo = z.infer<typeof TrainerInfoSchema>;

/** One base model in the service's Hub cache (GET /hub-cache). */
export const CachedModelSchema = z.object({
  /** The Hub id, `org/name`. */
  id: z.string(),
  /** Bytes of its files (each stored once, however many revisions name it). */
  bytes: z.number(),
  /** Revisions (commits) it holds. */
  revisions: z.number(),
  /** When a run last read or wrote its files (ISO time), when known. */
  lastUsed: z.optional(z.string()),
  /** A run going now trains from it: it cannot be removed. */
  inUse: z.boolean(),
});
export type CachedModel = z.infer<typeof CachedModelSchema>;

/** GET /hub-cache: where downloaded base models are kept, their total size and each model. */
export const HubCacheSchema = z.object({
  dir: z.string(),
  bytes: z.number(),
  models: z.array(CachedModelSchema),
});
export type HubCache = z.infer<typeof HubCacheSchema>;

const hubName = (what: string) =>
  z
    .string()
    .check(
      z.regex(
        /^(?!.*(?:--|\.\.))[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/,
        `is not a Hub ${what} (letters, digits, ".", "_" and "-"; no "--" or "..")`,
      ),
    );

/** DELETE /hub-cache/models/{org}/{name}: a Hub id's two parts. */
export const HubModelParamsSchema = z.object({
  org: hubName('organisation'),
  name: hubName('name'),
});

/** Every error the service sends: one sentence a person can act on. */
export const ErrorResponseSchema = z.object({ error: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

function describeIssue(issue: Issue): string {
  if (issue.message && issue.message !== 'Invalid input') return issue.message;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    case 'invalid_type':
      return `must be ${issue.expected === 'array' || issue.expected === 'object' ? 'an' : 'a'} ${issue.expected}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return 'is invalid';
  }
}

/**
 * A union's failure as the issues of the branch the value meant: the first branch whose issues
 * name no missing top-level field (a `{prompt, completion}` entry is not blamed for lacking
 * `messages`), else the last; paths made whole.
 */
function unionBranch(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const missingField = (branch: readonly Issue[]) =>
    branch.some((inner) => inner.path.length === 1 && inner.message === 'is required');
  const branch = issue.errors.find((b) => !missingField(b)) ?? issue.errors.at(-1) ?? [];
  return branch
    .map((inner): Issue => ({ ...inner, path: [...issue.path, ...inner.path] }))
    .flatMap(unionBranch);
}

/** One readable sentence for a failed validation: `max_steps must be greater than 0; …`. */
export function formatIssues(issues: readonly Issue[], subject = 'body'): string {
  return issues
    .flatMap(unionBranch)
    .map((issue) => {
      const where = issue.path.length ? issue.path.map(String).join('.') : subject;
      return `${where} ${describeIssue(issue)}`;
    })
    .join('; ');
}

/** Parses `data` with `schema` or throws an Error whose message is {@link formatIssues}. */
export function parseOrThrow<T>(schema: z.ZodMiniType<T>, data: unknown, subject = 'response'): T {
  const result = z.safeParse(schema, data);
  if (!result.success) throw new Error(`Invalid ${subject}: ${formatIssues(result.error.issues)}`);
  return result.data;
}
