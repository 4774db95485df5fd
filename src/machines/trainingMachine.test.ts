import { ApiError, httpErrorKind } from '../shared/api-error';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  trainingMachine,
  type PollRunInput,
  type PollRunOutput,
  type TrainingEmitted,
  type TrainingInput,
} from './trainingMachine';
import {
  selectFailure,
  selectIsBusy,
  selectPercent,
  selectEvalPoints,
  selectPoints,
  selectRunModel,
  selectRuns,
  selectTrainingStatus,
  selectUnreachable,
} from './trainingSelectors';
import {
  startingRunInfo,
  TRAINING_PARAMS,
  type MetricPoint,
  type RunInfo,
  type RunList,
  type TrainedModel,
  type TrainRequest,
} from '../shared/training-api';

const request: TrainRequest = {
  script_path: 'training/finetune.py',
  output_dir: 'service-data/outputs/lora',
  data_file: 'service-data/datasets/input_data.json',
  base_model: 'meta-llama/Llama-3.2-3B-Instruct',
  ...TRAINING_PARAMS,
};

function runInfo(patch: Partial<RunInfo> = {}): RunInfo {
  return {
    ...startingRunInfo('run-1', {
      script_path: request.script_path,
      base_model: request.base_model,
      output_dir: request.output_dir,
      data_file: request.data_file,
      started_at: '2025-01-01T00:00:00.000Z',
    }),
    ...patch,
  };
}

/** What the training client throws for a non-OK answer. */
class HttpError extends ApiError {
  constructor(message: string, status: number) {
    super(httpErrorKind(status), message, { status });
  }
}

type PollStep = PollRunOutput | Error;

/** Fake actors: each poll takes the next scripted answer (the last one repeats). */
async function harness(
  options: {
    polls?: PollStep[];
    start?: string | Error;
    runs?: RunList | Error;
    models?: TrainedModel[];
    cancel?: RunInfo | Error;
    resume?: RunInfo | Error;
    input?: TrainingInput;
    pollInterval?: number;
  } = {},
) {
  const calls = {
    start: [] as TrainRequest[],
    poll: 0,
    cancel: 0,
    resume: [] as string[],
    catalog: 0,
    after: [] as number[],
    evalAfter: [] as number[],
  };
  const polls = options.polls ?? [];
  const logic = trainingMachine.provide({
    actors: {
      startTraining: fromPromise(async ({ input }: { input: { request: TrainRequest } }) => {
        calls.start.push(input.request);
        const start = options.start ?? 'run-1';
        if (start instanceof Error) throw start;
        return { runId: start };
      }),
      pollRun: fromPromise(async ({ input }: { input: PollRunInput }) => {
        calls.after.push(input.after);
        calls.evalAfter.push(input.evalAfter);
        const step = polls[Math.min(calls.poll, polls.length - 1)];
        calls.poll += 1;
        if (!step) throw new Error('no poll scripted');
        if (step instanceof Error) throw step;
        return step;
      }),
      fetchCatalog: fromPromise(async () => {
        calls.catalog += 1;
        const list = options.runs ?? { runs: [], active: null };
        if (list instanceof Error) throw list;
        return { runs: list, models: options.models ?? [] };
      }),
      cancelRun: fromPromise(async () => {
        calls.cancel += 1;
        const run = options.cancel ?? runInfo({ state: 'cancelled', signal: 'SIGTERM' });
        if (run instanceof Error) throw run;
        return run;
      }),
      resumeRun: fromPromise(async ({ input }: { input: { runId: string } }) => {
        calls.resume.push(input.runId);
        const run =
          options.resume ?? runInfo({ id: input.runId, progress: 40, current: 4, total: 10 });
        if (run instanceof Error) throw run;
        return run;
      }),
    },
    delays: { pollInterval: options.pollInterval ?? 5 },
  });
  const actor = createActor(logic, { input: options.input ?? {} });
  const emitted: TrainingEmitted[] = [];
  actor.on('training.startFailed', (event) => void emitted.push(event));
  actor.start();
  // The machine first asks the service which run is active.
  await waitFor(actor, (s) => !s.matches('attaching'));
  return { actor, calls, emitted };
}

function point(seq: number, step: number, loss: number): MetricPoint {
  return { seq, step, loss, learning_rate: 2e-4, epoch: null, grad_norm: null, time: step };
}

const poll = (
  lines: string[],
  run: Partial<RunInfo> = {},
  points: MetricPoint[] = [],
): PollRunOutput => ({
  lines,
  run: runInfo(run),
  metrics: { points, next: points.at(-1)?.seq ?? -1, seen: points.length, stride: 1 },
});
const succeeded = { state: 'succeeded', phase: null, exit_code: 0 } as const;

afterEach(() => {
  vi.useRealTimers();
});

describe('trainingMachine', () => {
  it('idle → training.start → starting → running, with the request as given', async () => {
    const { actor, calls } = await harness({
      polls: [poll(['step 1/120'])],
      pollInterval: 60_000,
    });
    expect(actor.getSnapshot().value).toBe('idle');
    actor.send({ type: 'training.start', request });
    expect(selectTrainingStatus(actor.getSnapshot())).toBe('starting');
    expect(selectIsBusy(actor.getSnapshot())).toBe(true);
    await waitFor(actor, (s) => s.matches('running'));
    expect(calls.start).toEqual([request]);
    expect(actor.getSnapshot().context.runId).toBe('run-1');
    expect(actor.getSnapshot().context.percent).toBe(0);
  });

  it('running → polls every pollInterval (2000 ms) → saving at the last step → finished only when succeeded', async () => {
    vi.useFakeTimers();
    const polls = [
      poll(['step 30/120']),
      poll(['step 60/120']),
      poll(['step 120/120', 'merging'], { phase: 'saving', current: 120, total: 120 }),
      poll(['step 120/120', 'saved'], succeeded),
      poll(['never read']),
    ];
    const calls = { poll: 0 };
    const actor = createActor(
      trainingMachine.provide({
        actors: {
          startTraining: fromPromise(async () => ({ runId: 'run-1' })),
          pollRun: fromPromise(async () => polls[calls.poll++] ?? poll([])),
        },
      }),
      { input: {} },
    ).start();
    await vi.advanceTimersByTimeAsync(0); // GET /runs (not provided here: fails → idle)
    expect(actor.getSnapshot().value).toBe('idle');
    actor.send({ type: 'training.start', request });
    await vi.advanceTimersByTimeAsync(0);
    expect(actor.getSnapshot().matches('running')).toBe(true);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls.poll).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.poll).toBe(1);
    expect(actor.getSnapshot().context.percent).toBe(25);
    await vi.advanceTimersByTimeAsync(2000);
    expect(actor.getSnapshot().context.percent).toBe(50);
    await vi.advanceTimersByTimeAsync(2000);
    // The last step is printed but the trainer still runs: 100 %, "Saving…", not finished.
    expect(selectTrainingStatus(actor.getSnapshot())).toBe('saving');
    expect(selectPercent(actor.getSnapshot())).toBe(100);
    expect(selectIsBusy(actor.getSnapshot())).toBe(true);
    await vi.advanceTimersByTimeAsync(2000);
    expect(actor.getSnapshot().value).toEqual({ ended: 'finished' });
    expect(actor.getSnapshot().context.percent).toBe(100);
    expect(actor.getSnapshot().context.lines).toEqual(['step 120/120', 'saved']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.poll).toBe(4);
    expect(selectIsBusy(actor.getSnapshot())).toBe(false);
  });

  it('progress has two decimals and never goes backwards', async () => {
    const { actor } = await harness({
      polls: [
        poll(['step 1/3']),
        poll(['step 0/3']),
        poll(['step 2/3']),
        poll(['step 3/3'], succeeded),
      ],
    });
    const seen: number[] = [];
    actor.subscribe((s) => seen.push(s.context.percent));
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    const distinct = [...new Set(seen)];
    expect(distinct).toEqual([0, 33.33, 66.67, 100]);
  });

  it('starting → non-OK start → idle, emitting the server text for the alert', async () => {
    const { actor, emitted, calls } = await harness({
      start: new HttpError('A training run is already in progress (run x).', 409),
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('idle'));
    expect(emitted).toEqual([
      { type: 'training.startFailed', message: 'A training run is already in progress (run x).' },
    ]);
    expect(calls.poll).toBe(0);
    expect(actor.getSnapshot().context.runId).toBeNull();
  });

  it('poll failures are ignored; after 3 in a row the service is unreachable, the run kept', async () => {
    const down = new Error('The training service at http://127.0.0.1:8000 is unreachable');
    const { actor, calls } = await harness({
      polls: [
        poll(['step 10/100']),
        down,
        down,
        down,
        poll(['step 50/100']),
        poll(['step 100/100'], succeeded),
      ],
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, () => calls.poll === 3);
    await waitFor(actor, (s) => s.matches({ running: 'waiting' }));
    expect(selectUnreachable(actor.getSnapshot())).toBe(false);
    await waitFor(actor, (s) => selectUnreachable(s));
    expect(actor.getSnapshot().context).toMatchObject({
      runId: 'run-1',
      percent: 10,
      lastError: down.message,
    });
    await waitFor(actor, (s) => s.context.percent === 50);
    expect(selectUnreachable(actor.getSnapshot())).toBe(false);
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
  });

  it('running → the script exits non-zero → failed with its exit code', async () => {
    const { actor } = await harness({
      polls: [
        poll(['step 1/120']),
        poll(['error: Missing Python packages: torch'], { state: 'failed', exit_code: 2 }),
      ],
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'failed' }));
    expect(selectFailure(actor.getSnapshot())).toEqual({
      message: 'The training script exited with code 2.',
      exitCode: 2,
    });
    expect(actor.getSnapshot().context.lines).toEqual(['error: Missing Python packages: torch']);
  });

  it('running → the service forgot the run (404) → failed', async () => {
    const { actor } = await harness({ polls: [new HttpError('No run with id "run-1"', 404)] });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'failed' }));
    expect(selectFailure(actor.getSnapshot())?.message).toMatch(/no longer knows run run-1/);
  });

  it('running → training.cancel → cancelling → cancelled', async () => {
    const { actor, calls } = await harness({ polls: [poll(['step 1/120'])], pollInterval: 60_000 });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'training.cancel' });
    expect(selectTrainingStatus(actor.getSnapshot())).toBe('cancelling');
    await waitFor(actor, (s) => s.matches({ ended: 'cancelled' }));
    expect(calls.cancel).toBe(1);
    expect(selectIsBusy(actor.getSnapshot())).toBe(false);
  });

  it('a cancel that fails goes back to polling, which finds how the run ended', async () => {
    const { actor } = await harness({
      polls: [poll(['step 120/120'], { state: 'succeeded', exit_code: 0 })],
      cancel: new HttpError('Run run-1 is not running (it is succeeded)', 409),
      pollInterval: 60_000,
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'training.cancel' });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    expect(actor.getSnapshot().context.lastError).toBeNull();
  });

  it('finished → training.start again starts a new run from 0%', async () => {
    const { actor, calls } = await harness({ polls: [poll(['step 5/5'], succeeded)] });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    actor.send({ type: 'training.start', request });
    expect(actor.getSnapshot().context.percent).toBe(0);
    expect(actor.getSnapshot().context.lines).toEqual([]);
    await waitFor(actor, (s) => s.matches('running') || s.matches({ ended: 'finished' }));
    expect(calls.start).toHaveLength(2);
  });

  it('the last step printed, then exit 1 → failed, never finished', async () => {
    const { actor } = await harness({
      polls: [
        poll(['step 120/120'], { phase: 'saving', current: 120, total: 120 }),
        poll(['step 120/120', 'OSError: disk full'], { state: 'failed', exit_code: 1 }),
      ],
    });
    const statuses = new Set<string>();
    actor.subscribe((s) => statuses.add(selectTrainingStatus(s)));
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'failed' }));
    expect(statuses.has('saving')).toBe(true);
    expect(statuses.has('finished')).toBe(false);
    expect(selectFailure(actor.getSnapshot())?.exitCode).toBe(1);
  });

  it('loss points accumulate across polls, each poll asking only for newer ones', async () => {
    const { actor, calls } = await harness({
      polls: [
        poll(['step 2/4'], {}, [point(0, 1, 2.0), point(1, 2, 1.5)]),
        poll(['step 4/4'], { phase: 'saving' }, [point(2, 3, 1.1), point(3, 4, 0.9)]),
        poll(['step 4/4'], succeeded),
      ],
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    expect(selectPoints(actor.getSnapshot()).map((p) => p.loss)).toEqual([2.0, 1.5, 1.1, 0.9]);
    expect(calls.after).toEqual([-1, 1, 3]);
    // A new run starts a new curve.
    actor.send({ type: 'training.start', request });
    expect(selectPoints(actor.getSnapshot())).toEqual([]);
  });

  it('held-out points accumulate across polls, each poll asking only for newer ones', async () => {
    const withEval = (output: PollRunOutput, ...evals: [number, number, number][]) => ({
      ...output,
      metrics: {
        ...output.metrics,
        eval: evals.map(([seq, step, loss]) => ({ seq, step, loss, time: step })),
      },
    });
    const { actor, calls } = await harness({
      polls: [
        withEval(poll(['step 2/4']), [0, 2, 1.8]),
        // An answer that repeats a point already held (a retried poll) adds nothing twice.
        withEval(poll(['step 4/4'], { phase: 'saving' }), [0, 2, 1.8], [1, 4, 1.2]),
        withEval(poll(['step 4/4'], succeeded)),
      ],
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    expect(selectEvalPoints(actor.getSnapshot()).map((p) => p.loss)).toEqual([1.8, 1.2]);
    expect(calls.evalAfter).toEqual([-1, 0, 1]);
    actor.send({ type: 'training.start', request });
    expect(selectEvalPoints(actor.getSnapshot())).toEqual([]);
  });

  it('a run that ends refreshes the Runs list and the trained models', async () => {
    const done = runInfo({ ...succeeded, model_id: 'trained/lora' });
    const model: TrainedModel = {
      id: 'trained/lora',
      name: 'lora',
      run_id: 'run-1',
      base_model: request.base_model,
      output_dir: request.output_dir,
      variants: ['fp32'],
      bytes: 1,
      created_at: '2025-01-01T00:00:01.000Z',
    };
    const { actor, calls } = await harness({
      polls: [poll(['step 1/1'], succeeded)],
      runs: { runs: [done], active: null },
      models: [model],
    });
    // The first answer (on load) already lists them; the end of the run asks again.
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
    await waitFor(actor, () => calls.catalog === 2);
    expect(selectRuns(actor.getSnapshot())).toEqual([done]);
    expect(selectRunModel(actor.getSnapshot())).toEqual(model);
  });

  describe('the service owns the run: attaching on load (GET /runs)', () => {
    it('a run active on the service (started in another tab, or by curl) → running, polled at once', async () => {
      const other = runInfo({ id: 'run-curl', progress: 40, current: 40, total: 100 });
      const { actor, calls } = await harness({
        runs: { runs: [other, runInfo({ id: 'old', ...succeeded })], active: 'run-curl' },
        polls: [poll(['step 50/100'], { id: 'run-curl', progress: 50 })],
        pollInterval: 60_000,
      });
      expect(actor.getSnapshot().context.runId).toBe('run-curl');
      expect(calls.start).toEqual([]);
      await waitFor(actor, () => calls.poll === 1);
      await waitFor(actor, (s) => s.context.percent === 50);
      expect(selectTrainingStatus(actor.getSnapshot())).toBe('running');
      expect(calls.after).toEqual([-1]); // the whole curve so far
      actor.send({ type: 'training.cancel' });
      await waitFor(actor, (s) => s.matches({ ended: 'cancelled' }));
      expect(calls.cancel).toBe(1);
    });

    it('an active run already saving → 100 % and saving', async () => {
      const saving = runInfo({ id: 'r', phase: 'saving', progress: 100, current: 10, total: 10 });
      const { actor } = await harness({
        runs: { runs: [saving], active: 'r' },
        polls: [poll(['step 10/10'], { id: 'r', phase: 'saving', progress: 100 })],
        pollInterval: 60_000,
      });
      expect(selectTrainingStatus(actor.getSnapshot())).toBe('saving');
      expect(selectPercent(actor.getSnapshot())).toBe(100);
    });

    it('no active run, or the service down → idle, nothing started', async () => {
      const none = await harness({
        runs: { runs: [runInfo({ id: 'old', ...succeeded })], active: null },
      });
      expect(none.actor.getSnapshot().value).toBe('idle');
      expect(none.actor.getSnapshot().context.runId).toBeNull();
      const down = await harness({ runs: new Error('unreachable') });
      expect(down.actor.getSnapshot().value).toBe('idle');
      expect(down.calls.poll).toBe(0);
    });
  });

  describe('resume', () => {
    const failedRun = runInfo({
      id: 'old',
      state: 'failed',
      phase: null,
      exit_code: 1,
      progress: 50,
      current: 5,
      total: 10,
      checkpoint_step: 4,
      resumable: true,
    });

    it('idle → training.resume → POST /runs/{id}/resume → running (watching that run) → finished', async () => {
      const { actor, calls } = await harness({
        runs: { runs: [failedRun], active: null },
        polls: [
          poll(['[service] resumed from step 4', 'step 6/10'], {
            id: 'old',
            current: 6,
            total: 10,
          }),
          poll(['step 10/10'], { id: 'old', ...succeeded }),
        ],
      });
      expect(actor.getSnapshot().value).toBe('idle');
      actor.send({ type: 'training.resume', runId: 'old' });
      expect(selectIsBusy(actor.getSnapshot())).toBe(true);
      expect(selectTrainingStatus(actor.getSnapshot())).toBe('starting');
      await waitFor(actor, (s) => s.matches('running'));
      expect(calls.resume).toEqual(['old']);
      expect(calls.start).toEqual([]);
      expect(actor.getSnapshot().context.runId).toBe('old');
      await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
      expect(selectPercent(actor.getSnapshot())).toBe(100);
      // The whole curve, the first attempt's points included, is asked for once.
      expect(calls.after[0]).toBe(-1);
    });

    it('ended (failed) → training.resume → running again', async () => {
      const { actor, calls } = await harness({
        polls: [
          poll(['step 5/10', 'error: CUDA out of memory'], { state: 'failed', exit_code: 1 }),
          poll(['step 10/10'], succeeded),
        ],
        pollInterval: 5,
      });
      actor.send({ type: 'training.start', request });
      await waitFor(actor, (s) => s.matches({ ended: 'failed' }));
      actor.send({ type: 'training.resume', runId: 'run-1' });
      await waitFor(actor, (s) => s.matches({ ended: 'finished' }));
      expect(calls.resume).toEqual(['run-1']);
      expect(calls.start).toHaveLength(1);
    });

    it('a refused resume → idle, the service text emitted for the alert', async () => {
      const text = 'Run old has no checkpoint to resume from (/srv/out/checkpoints)';
      const { actor, emitted, calls } = await harness({ resume: new HttpError(text, 409) });
      actor.send({ type: 'training.resume', runId: 'old' });
      await waitFor(actor, (s) => s.matches('idle'));
      expect(emitted).toEqual([{ type: 'training.startFailed', message: text }]);
      expect(calls.poll).toBe(0);
    });
  });
});
