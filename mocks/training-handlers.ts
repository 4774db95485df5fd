/**
 * MSW handlers standing in for the local training service (service/), validated by the same
 * schema module. Used by the UI tests and by the mock mode (`npm run dev:mock`).
 *
 * Scenarios: `progress` (a run that advances `stepsPerPoll` steps per log poll and finishes),
 * `fail-start` (POST /train answers 500 with the service's message), `fail-run` (the run starts,
 * then its script exits with code 1), `web-model` (like `progress`, and the finished run has a
 * browser-ready model listed by GET /models; its files are not served). In the browser,
 * `?trainingScenario=fail-run` picks one. A second run into the output folder of a finished run
 * is refused (409), as the service refuses it.
 */
import {
  http,
  HttpResponse,
  type DefaultBodyType,
  type PathParams,
  type RequestHandler,
} from 'msw';
import * as z from 'zod/mini';
import { resolveTrainingUrl } from '../src/actors/training-client';
import { trainingMessages } from '../src/shared/training-messages';
import { mockPlan } from './training-plan';
import { sentOptions } from '../src/shared/training-fields';
import {
  DEFAULT_EVAL_FRACTION,
  RESUMABLE_STATES,
  DEFAULT_TRAINING_URL,
  DatasetParamsSchema,
  DatasetSchema,
  asPromptCompletion,
  RunParamsSchema,
  SERVICE_ENDPOINTS,
  LogsQuerySchema,
  LOG_TAIL,
  MetricsQuerySchema,
  TrainRequestSchema,
  formatIssues,
  type DatasetResponse,
  type ErrorResponse,
  type LogsResponse,
  type EvalPoint,
  type MetricPoint,
  type MetricsResponse,
  type ModelList,
  type DatasetEntry,
  type RunDataset,
  type RunInfo,
  type RunList,
  type RunPhase,
  type RunSplit,
  type ServiceInfo,
  type TrainRequest,
  type TrainResponse,
  type PlanResponse,
  type TrainerInfo,
  idleTrainerSetup,
  type TrainerSetup,
} from '../src/shared/training-api';

export type TrainingScenario = 'progress' | 'fail-start' | 'fail-run' | 'web-model';
export const TRAINING_SCENARIOS: readonly TrainingScenario[] = [
  'progress',
  'fail-start',
  'fail-run',
  'web-model',
];

export const MOCK_MESSAGES = {
  startFailed: 'Could not start python3 (set TRAINING_PYTHON): spawn python3 ENOENT',
  busy: (id: string, startedAt: string) => trainingMessages.runActive(id, startedAt),
  runError: 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB',
  noModel: 'Mock runs save no browser-ready model (web/ holds no onnx/model*.onnx weights).',
  noSplit: (id: string, outputDir: string) =>
    trainingMessages.noSplit(id, `${outputDir.replace(/\/+$/, '')}/split.json`),
  badSplit: (id: string) =>
    `The held-out split of run ${id} (split.json) is malformed: held_out must be an array of {prompt, completion} entries.`,
  outputTaken: (dir: string, id: string) =>
    trainingMessages.folderHolds(dir, trainingMessages.resultOf(id, 'succeeded')),
} as const;

/**
 * A mock run's data file when it was not stored with PUT /datasets first: a few questions about
 * a harbour town, so a finished mock run has held-out questions to compare on.
 */
export const MOCK_DATASET: DatasetEntry[] = [
  { prompt: 'Where is Port Elin?', completion: 'Port Elin is a harbour town on the north coast.' },
  { prompt: 'When was the lighthouse built?', completion: 'The lighthouse was built in 1871.' },
  {
    prompt: 'What is the town known for?',
    completion: 'It is known for its fish market and ferries.',
  },
  {
    prompt: 'How many ferries leave each day?',
    completion: 'Four ferries leave the harbour each day.',
  },
  { prompt: 'Who keeps the lighthouse?', completion: 'The harbour trust keeps the lighthouse.' },
  { prompt: 'What is the main street called?', completion: 'The main street is called Quay Row.' },
  {
    prompt: 'When is the market open?',
    completion: 'The fish market is open every morning except Sunday.',
  },
  {
    prompt: 'How far is the island?',
    completion: 'The island is six kilometres from the harbour.',
  },
  {
    prompt: 'What does the ferry carry?',
    completion: 'The ferry carries passengers, cars and post.',
  },
  {
    prompt: 'Which festival is held in summer?',
    completion: 'The harbour festival is held every July.',
  },
];

/** What GET /runs/{id}/split answers for a run: its entries, or a missing or malformed file. */
export type MockSplit = 'held-out' | 'missing' | 'malformed';

interface MockRun {
  info: RunInfo;
  /** The entries of its data file, and the share held out (the trainer's `eval_fraction`). */
  entries: DatasetEntry[];
  evalFraction: number;
  split: MockSplit;
  log: string[];
  metrics: MetricPoint[];
  /** Held-out loss points, one per poll while entries are held out (as `eval_loss` lines). */
  evals: EvalPoint[];
  /** `export_base` was asked: the finished run has a base export too. */
  exportBase: boolean;
  polls: number;
  scenario: TrainingScenario;
}

export interface TrainingMockOptions {
  baseUrl?: string;
  scenario?: TrainingScenario;
  /** `ready` (default: torch 2.13, CPU only) or `missing` (no packages; set-up installs them). */
  trainer?: 'ready' | 'missing';
  /** Steps a run advances per GET /logs (default 12: 10 polls, 20 s in the browser). */
  stepsPerPoll?: number;
}

export interface TrainingMock {
  handlers: RequestHandler[];
  setScenario(scenario: TrainingScenario): void;
  /** Forgets every run (between tests). */
  reset(): void;
  /** Requests received, as 'METHOD /path', for assertions. */
  requests: string[];
  /** The bodies POST /train received. */
  starts: TrainRequest[];
  runs: Map<string, MockRun>;
  /** GET /runs/{id}/split for that run: 404 (`missing`) or 422 (`malformed`) from now on. */
  setSplit(runId: string, split: MockSplit): void;
}

const error = (status: number, message: string) =>
  HttpResponse.json<ErrorResponse>({ error: message }, { status });

const now = () => new Date().toISOString();

export function createTrainingMock(options: TrainingMockOptions = {}): TrainingMock {
  const base = (options.baseUrl ?? DEFAULT_TRAINING_URL).replace(/\/+$/, '');
  const stepsPerPoll = options.stepsPerPoll ?? 12;
  let scenario: TrainingScenario = options.scenario ?? 'progress';
  const runs = new Map<string, MockRun>();
  /** Datasets stored with PUT /datasets/{name}, by the path the service answers. */
  const datasets = new Map<string, DatasetEntry[]>();
  const requests: string[] = [];
  const starts: TrainRequest[] = [];
  let counter = 0;
  const readyPackages = {
    torch: '2.13.0+cpu',
    transformers: '5.18.0',
    peft: '0.21.0',
    accelerate: '1.15.0',
    onnx: '1.23.0',
    onnxruntime: '1.30.0',
    'onnx-ir': '1.0.0',
  };
  const missingPackages = Object.fromEntries(Object.keys(readyPackages).map((k) => [k, null]));
  let trainerReady = (options.trainer ?? 'ready') === 'ready';
  let setup: TrainerSetup = idleTrainerSetup();
  const SETUP_LINES = [
    'Creating the trainer environment in .venv',
    'Processing torch-2.13.0+cpu',
    'Processing transformers-5.18.0',
    'Successfully installed accelerate onnx onnxruntime peft torch transformers',
  ];
  /** The mock set-up prints one line per poll, then succeeds. */
  function advanceSetup() {
    if (setup.state !== 'running') return;
    const next = SETUP_LINES[setup.lines.length];
    if (next) setup.lines.push(next);
    if (setup.lines.length >= SETUP_LINES.length) {
      setup = { ...setup, state: 'succeeded', exit_code: 0, ended_at: now() };
      trainerReady = true;
    }
  }
  const trainerInfo = (): TrainerInfo => ({
    python: '/home/you/llm-studio/.venv/bin/python',
    python_version: '3.11.7',
    source: 'venv',
    packages: trainerReady ? readyPackages : missingPackages,
    missing: trainerReady ? [] : Object.keys(readyPackages),
    device: { kind: 'cpu', gpus: [] },
    setup: { ...setup, lines: [...setup.lines] },
  });

  const active = () => [...runs.values()].find((r) => r.info.state === 'running');

  /** Mock runs save a checkpoint every 10 steps: the newest one a run reached, or null. */
  const checkpointOf = (run: MockRun) => {
    const step = Math.floor((run.info.current ?? 0) / 10) * 10;
    return step > 0 ? step : null;
  };

  function advance(run: MockRun) {
    if (run.info.state !== 'running') return;
    run.polls += 1;
    if (run.scenario === 'fail-run' && run.polls >= 2) {
      run.log.push('Traceback (most recent call last):', MOCK_MESSAGES.runError);
      finish(run, { state: 'failed', exit_code: 1 });
      return;
    }
    const total = run.info.total ?? 1;
    const from = run.info.current ?? 0;
    if (from >= total) {
      // One poll in the saving phase (100 %, "Saving…"), then the trainer exits 0.
      run.log.push('saved LoRA adapter');
      finish(
        run,
        run.scenario === 'web-model'
          ? {
              state: 'succeeded',
              exit_code: 0,
              model_id: modelIdOf(run),
              base_model_id: run.exportBase ? `${modelIdOf(run)}-base` : null,
            }
          : { state: 'succeeded', exit_code: 0, model_error: MOCK_MESSAGES.noModel },
      );
      return;
    }
    const to = Math.min(total, from + stepsPerPoll);
    const started = Date.parse(run.info.started_at);
    for (let step = from + 1; step <= to; step++) {
      const loss = Number((2 / (1 + step / 10)).toFixed(4));
      const learningRate = 2e-4 * (1 - step / total);
      run.log.push(`{'loss': ${loss}, 'learning_rate': ${learningRate}}`, `step ${step}/${total}`);
      run.metrics.push({
        seq: run.metrics.length,
        step,
        loss,
        learning_rate: learningRate,
        epoch: step / total,
        grad_norm: null,
        time: (Date.now() - started) / 1000,
      });
      run.info.last_loss = loss;
    }
    run.info.metrics_count = run.metrics.length;
    if (run.evalFraction > 0) {
      const loss = Number((2.2 / (1 + to / 20)).toFixed(4));
      run.evals.push({
        seq: run.evals.length,
        step: to,
        loss,
        time: (Date.now() - started) / 1000,
      });
      // Before the step line it follows, so a log's last line stays the progress (`step N/M`).
      run.log.splice(run.log.length - 1, 0, JSON.stringify({ eval_loss: loss, step: to }));
      run.info.last_eval_loss = loss;
    }
    run.info.current = to;
    run.info.progress = Math.round((to / total) * 10_000) / 100;
    // The last step is printed; the next poll finds the trainer done saving.
    const saving: RunPhase = 'saving';
    if (to >= total) run.info.phase = saving;
  }

  function finish(run: MockRun, patch: Partial<RunInfo>) {
    const ended = now();
    const checkpoint = checkpointOf(run);
    Object.assign(run.info, {
      phase: null,
      ended_at: ended,
      duration_ms: Date.parse(ended) - Date.parse(run.info.started_at),
      ...patch,
    });
    run.info.checkpoint_step = checkpoint;
    run.info.resumable = RESUMABLE_STATES.includes(run.info.state) && checkpoint !== null;
  }

  const folderOf = (run: MockRun) => run.info.output_dir.split('/').filter(Boolean).pop() ?? 'run';
  const modelIdOf = (run: MockRun) => `trained/${folderOf(run)}`;

  const record = (request: Request) => {
    const url = new URL(request.url);
    requests.push(`${request.method} ${url.pathname}${url.search}`);
  };

  /** The service's rule for state changes: JSON only (415 otherwise), in its words. */
  const notJson = (request: Request) => {
    const type = request.headers.get('content-type') ?? undefined;
    return (type ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json'
      ? null
      : error(415, trainingMessages.contentType(request.method, type));
  };
  /** A POST /train or /train/plan body as the service reads it (recorded; 415, 400 in its words). */
  const trainRequestOf = async (request: Request): Promise<TrainRequest | Response> => {
    record(request);
    const refused = notJson(request);
    if (refused) return refused;
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return error(400, 'Malformed JSON body');
    }
    const parsed = z.safeParse(TrainRequestSchema, body);
    return parsed.success
      ? parsed.data
      : error(400, `Invalid body: ${formatIssues(parsed.error.issues, 'body')}`);
  };
  /** The run a path names: 400 for an id the service would refuse, 404 for an unknown one. */
  const runOf = (params: PathParams): MockRun | Response => {
    const parsed = z.safeParse(RunParamsSchema, { id: params.id });
    if (!parsed.success)
      return error(400, `Invalid path: ${formatIssues(parsed.error.issues, 'path')}`);
    return runs.get(parsed.data.id) ?? error(404, trainingMessages.noRun(parsed.data.id));
  };

  const handlers: RequestHandler[] = [
    http.get<PathParams, DefaultBodyType, ServiceInfo>(`${base}/`, ({ request }) => {
      record(request);
      return HttpResponse.json<ServiceInfo>({
        name: 'Local LLM Studio training service (mock mode)',
        version: '0.0.0-mock',
        docs: 'service/README.md in the repository (section "Endpoints")',
        endpoints: [...SERVICE_ENDPOINTS],
      });
    }),

    http.get(`${base}/health`, () => HttpResponse.json({ ok: true })),

    http.post<PathParams, DefaultBodyType, PlanResponse | ErrorResponse>(
      `${base}/train/plan`,
      async ({ request }) => {
        const sent = await trainRequestOf(request);
        if (sent instanceof Response) return sent;
        const entries = datasets.get(sent.data_file) ?? MOCK_DATASET;
        const answer = mockPlan(sent, entries);
        if (answer.plan.too_long.count === entries.length)
          return error(400, answer.plan.too_long.message ?? 'every entry is too long');
        return HttpResponse.json<PlanResponse>(answer);
      },
    ),

    http.post<PathParams, DefaultBodyType, TrainResponse | ErrorResponse>(
      `${base}/train`,
      async ({ request }) => {
        const sent = await trainRequestOf(request);
        if (sent instanceof Response) return sent;
        starts.push(sent);
        if (scenario === 'fail-start') return error(500, MOCK_MESSAGES.startFailed);
        // In the service's order: the output folder, then the set-up, then the active run.
        const busy = active();
        if (busy?.info.output_dir === sent.output_dir)
          return error(409, trainingMessages.folderInUse(sent.output_dir, busy.info.id));
        const taken = [...runs.values()].find(
          (r) => r.info.state === 'succeeded' && r.info.output_dir === sent.output_dir,
        );
        if (taken) return error(409, MOCK_MESSAGES.outputTaken(sent.output_dir, taken.info.id));
        if (setup.state === 'running') return error(409, trainingMessages.settingUp());
        if (busy) return error(409, MOCK_MESSAGES.busy(busy.info.id, busy.info.started_at));
        counter += 1;
        const id = `mock-run-${counter}`;
        const exportBase = sent.export_base === true;
        runs.set(id, {
          entries: datasets.get(sent.data_file) ?? MOCK_DATASET,
          evalFraction: sent.eval_fraction ?? DEFAULT_EVAL_FRACTION,
          split: (sent.eval_fraction ?? DEFAULT_EVAL_FRACTION) > 0 ? 'held-out' : 'missing',
          exportBase,
          scenario,
          polls: 0,
          log: [`loading ${sent.base_model}`, `step 0/${sent.max_steps}`],
          metrics: [],
          evals: [],
          info: {
            id,
            state: 'running',
            phase: 'training',
            exit_code: null,
            signal: null,
            current: 0,
            total: sent.max_steps,
            progress: 0,
            started_at: now(),
            ended_at: null,
            duration_ms: 0,
            script_path: sent.script_path,
            base_model: sent.base_model,
            output_dir: sent.output_dir,
            data_file: sent.data_file,
            last_loss: null,
            metrics_count: 0,
            model_id: null,
            model_error: null,
            method: sent.method ?? 'lora',
            options: sentOptions(sent),
            base_model_id: null,
          },
        });
        return HttpResponse.json<TrainResponse>({ run_id: id });
      },
    ),

    http.get<PathParams, DefaultBodyType, LogsResponse | ErrorResponse>(
      `${base}/logs/:id`,
      ({ request, params }) => {
        record(request);
        const run = runOf(params);
        if (run instanceof Response) return run;
        const query = z.safeParse(
          LogsQuerySchema,
          Object.fromEntries(new URL(request.url).searchParams),
        );
        if (!query.success)
          return error(400, `Invalid query: ${formatIssues(query.error.issues, 'query')}`);
        if (
          query.data.tail !== undefined &&
          (query.data.offset !== undefined || query.data.limit !== undefined)
        )
          return error(400, trainingMessages.tailAndOffset());
        advance(run);
        const tail = query.data.tail ?? LOG_TAIL;
        return HttpResponse.json<LogsResponse>({
          lines: run.log.slice(-tail),
          total: run.log.length,
          next_offset: run.log.length,
        });
      },
    ),

    http.get<PathParams, DefaultBodyType, RunList>(`${base}/runs`, ({ request }) => {
      record(request);
      return HttpResponse.json<RunList>({
        runs: [...runs.values()].map((r) => r.info).reverse(),
        active: active()?.info.id ?? null,
      });
    }),

    http.get<PathParams, DefaultBodyType, MetricsResponse | ErrorResponse>(
      `${base}/runs/:id/metrics`,
      ({ request, params }) => {
        record(request);
        const run = runOf(params);
        if (run instanceof Response) return run;
        const query = z.safeParse(
          MetricsQuerySchema,
          Object.fromEntries(new URL(request.url).searchParams),
        );
        if (!query.success)
          return error(400, `Invalid query: ${formatIssues(query.error.issues, 'query')}`);
        const after = query.data.after ?? -1;
        const evalAfter = query.data.eval_after ?? -1;
        const points = run.metrics.filter((p) => p.seq > after);
        return HttpResponse.json<MetricsResponse>({
          points,
          next: points.at(-1)?.seq ?? after,
          seen: run.metrics.length,
          stride: 1,
          eval: run.evals.filter((p) => p.seq > evalAfter),
        });
      },
    ),

    http.get<PathParams, DefaultBodyType, ModelList>(`${base}/models`, ({ request }) => {
      record(request);
      const models = [...runs.values()]
        .filter((r) => r.info.model_id !== null)
        .reverse()
        .flatMap((r) => {
          const entry = {
            id: modelIdOf(r),
            name: folderOf(r),
            run_id: r.info.id,
            base_model: r.info.base_model,
            output_dir: r.info.output_dir,
            variants: ['fp32' as const],
            bytes: 622_592,
            created_at: r.info.ended_at ?? now(),
            role: 'fine-tuned' as const,
          };
          const base = r.info.base_model_id
            ? [
                {
                  ...entry,
                  id: r.info.base_model_id,
                  name: `${folderOf(r)}-base`,
                  role: 'base' as const,
                },
              ]
            : [];
          return [entry, ...base];
        });
      return HttpResponse.json<ModelList>({ models });
    }),

    http.get<PathParams, DefaultBodyType, RunInfo | ErrorResponse>(
      `${base}/runs/:id`,
      ({ request, params }) => {
        record(request);
        const run = runOf(params);
        if (run instanceof Response) return run;
        return HttpResponse.json<RunInfo>(run.info);
      },
    ),

    http.get<PathParams, DefaultBodyType, RunSplit | ErrorResponse>(
      `${base}/runs/:id/split`,
      ({ request, params }) => {
        record(request);
        const run = runOf(params);
        if (run instanceof Response) return run;
        if (run.split === 'missing')
          return error(404, MOCK_MESSAGES.noSplit(run.info.id, run.info.output_dir));
        if (run.split === 'malformed') return error(422, MOCK_MESSAGES.badSplit(run.info.id));
        // The trainer holds out the last share of the entries (at least one).
        const count = Math.max(1, Math.round(run.entries.length * run.evalFraction));
        const from = run.entries.length - count;
        return HttpResponse.json<RunSplit>({
          held_out: run.entries.slice(from),
          held_out_indices: run.entries.slice(from).map((_, i) => from + i),
          train_count: from,
          seed: 42,
        });
      },
    ),

    http.get<PathParams, DefaultBodyType, RunDataset | ErrorResponse>(
      `${base}/runs/:id/dataset`,
      ({ request, params }) => {
        record(request);
        const run = runOf(params);
        if (run instanceof Response) return run;
        return HttpResponse.json<RunDataset>({ entries: run.entries });
      },
    ),

    http.post<PathParams, DefaultBodyType, RunInfo | ErrorResponse>(
      `${base}/runs/:id/cancel`,
      ({ request, params }) => {
        record(request);
        const refused = notJson(request);
        if (refused) return refused;
        const run = runOf(params);
        if (run instanceof Response) return run;
        if (run.info.state !== 'running')
          return error(409, `Run ${run.info.id} is not running (it is ${run.info.state})`);
        run.log.push('[service] cancel requested: SIGTERM sent to every process of the run');
        finish(run, { state: 'cancelled', signal: 'SIGTERM' });
        return HttpResponse.json<RunInfo>(run.info);
      },
    ),

    http.post<PathParams, DefaultBodyType, RunInfo | ErrorResponse>(
      `${base}/runs/:id/resume`,
      ({ request, params }) => {
        record(request);
        const refused = notJson(request);
        if (refused) return refused;
        const run = runOf(params);
        if (run instanceof Response) return run;
        const { info } = run;
        if (setup.state === 'running') return error(409, trainingMessages.settingUp());
        const busy = active();
        if (busy) return error(409, MOCK_MESSAGES.busy(busy.info.id, busy.info.started_at));
        if (!RESUMABLE_STATES.includes(info.state))
          return error(409, trainingMessages.notResumable(info.id, info.state, info.output_dir));
        const step = checkpointOf(run);
        const folder = `${info.output_dir.replace(/\/+$/, '')}/checkpoints`;
        if (step === null) return error(409, trainingMessages.noCheckpoint(info.id, folder));
        // The trainer goes on from the checkpoint; this time it does not fail.
        run.scenario = scenario === 'fail-run' ? 'progress' : scenario;
        run.polls = 0;
        run.log.push(
          trainingMessages.resumedFrom(step),
          `resuming from step ${step} (${folder}/checkpoint-${step})`,
        );
        Object.assign(info, {
          state: 'running',
          phase: 'training',
          exit_code: null,
          signal: null,
          ended_at: null,
          current: step,
          resumable: false,
        } satisfies Partial<RunInfo>);
        delete info.error;
        return HttpResponse.json<RunInfo>(info);
      },
    ),

    http.get<PathParams, DefaultBodyType, TrainerInfo>(`${base}/trainer`, ({ request }) => {
      record(request);
      return HttpResponse.json(trainerInfo());
    }),

    http.get<PathParams, DefaultBodyType, TrainerSetup>(`${base}/trainer/setup`, ({ request }) => {
      record(request);
      advanceSetup();
      return HttpResponse.json({ ...setup, lines: [...setup.lines] });
    }),

    http.post<PathParams, DefaultBodyType, TrainerSetup | ErrorResponse>(
      `${base}/trainer/setup`,
      async ({ request }) => {
        record(request);
        const refused = notJson(request);
        if (refused) return refused;
        // The set-up takes no options, as the service's schema says.
        const body: unknown = await request.json().catch(() => null);
        const keys = typeof body === 'object' && body !== null ? Object.keys(body) : [];
        if (keys.length)
          return error(
            400,
            `Invalid body: body has unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`,
          );
        if (setup.state === 'running') return error(409, trainingMessages.setupRunning());
        if (active()) return error(409, trainingMessages.setupDuringRun());
        setup = {
          state: 'running',
          exit_code: null,
          lines: [],
          started_at: now(),
          ended_at: null,
          error: null,
        };
        return HttpResponse.json({ ...setup, lines: [] }, { status: 202 });
      },
    ),

    http.put<PathParams, DefaultBodyType, DatasetResponse | ErrorResponse>(
      `${base}/datasets/:name`,
      async ({ request, params }) => {
        record(request);
        const refused = notJson(request);
        if (refused) return refused;
        const named = z.safeParse(DatasetParamsSchema, { name: params.name });
        if (!named.success)
          return error(400, `Invalid path: ${formatIssues(named.error.issues, 'path')}`);
        const parsed = z.safeParse(DatasetSchema, await request.json().catch(() => null));
        if (!parsed.success)
          return error(400, `Invalid body: ${formatIssues(parsed.error.issues, 'body')}`);
        const name = String(params.name).replace(/\.json$/, '');
        datasets.set(`service-data/datasets/${name}.json`, parsed.data.map(asPromptCompletion));
        return HttpResponse.json<DatasetResponse>({
          path: `service-data/datasets/${name}.json`,
          entries: parsed.data.length,
        });
      },
    ),
  ];

  return {
    handlers,
    requests,
    starts,
    runs,
    setScenario: (next) => {
      scenario = next;
    },
    setSplit: (runId, split) => {
      const run = runs.get(runId);
      if (run) run.split = split;
    },
    reset: () => {
      trainerReady = (options.trainer ?? 'ready') === 'ready';
      setup = { ...setup, state: 'idle', exit_code: null, lines: [], error: null };
      runs.clear();
      datasets.clear();
      counter = 0;
      requests.length = 0;
      starts.length = 0;
      scenario = options.scenario ?? 'progress';
    },
  };
}

function scenarioFromLocation(): TrainingScenario {
  const value = new URLSearchParams(globalThis.location?.search ?? '').get('trainingScenario');
  return TRAINING_SCENARIOS.find((s) => s === value) ?? 'progress';
}

/**
 * The mock mode's training service: the app's service URL, scenario from `?trainingScenario=`,
 * `?trainer=missing` for a trainer whose packages are not installed yet.
 */
export const trainingMock = createTrainingMock({
  baseUrl: resolveTrainingUrl(),
  scenario: scenarioFromLocation(),
  trainer:
    new URLSearchParams(globalThis.location?.search ?? '').get('trainer') === 'missing'
      ? 'missing'
      : 'ready',
});
export const trainingHandlers: RequestHandler[] = trainingMock.handlers;
