import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  selectFailure,
  selectIsBusy,
  selectRunToResume,
  selectTrainingStatus,
  selectUnreachable,
  trainingMachine,
  type PollRunOutput,
  type TrainingEmitted,
  type TrainingInput,
} from './trainingMachine';
import { TRAINING_PARAMS, type RunInfo, type TrainRequest } from '../shared/training-api';

const request: TrainRequest = {
  script_path: 'training/finetune.py',
  output_dir: 'service-data/outputs/lora',
  data_file: 'service-data/datasets/input_data.json',
  base_model: 'meta-llama/Llama-3.2-3B-Instruct',
  ...TRAINING_PARAMS,
};

function runInfo(patch: Partial<RunInfo> = {}): RunInfo {
  return {
    id: 'run-1',
    state: 'running',
    phase: 'training',
    exit_code: null,
    signal: null,
    current: null,
    total: null,
    progress: 0,
    started_at: '2025-01-01T00:00:00.000Z',
    ended_at: null,
    duration_ms: 0,
    script_path: request.script_path,
    base_model: request.base_model,
    output_dir: request.output_dir,
    data_file: request.data_file,
    last_loss: null,
    metrics_count: 0,
    model_id: null,
    model_error: null,
    ...patch,
  };
}

class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

type PollStep = PollRunOutput | Error;

/** Fake actors: each poll takes the next scripted answer (the last one repeats). */
function harness(
  options: {
    polls?: PollStep[];
    start?: string | Error;
    getRun?: RunInfo | Error;
    cancel?: RunInfo | Error;
    input?: TrainingInput;
    pollInterval?: number;
  } = {},
) {
  const calls = { start: [] as TrainRequest[], poll: 0, cancel: 0, getRun: 0 };
  const polls = options.polls ?? [];
  const logic = trainingMachine.provide({
    actors: {
      startTraining: fromPromise(async ({ input }: { input: { request: TrainRequest } }) => {
        calls.start.push(input.request);
        const start = options.start ?? 'run-1';
        if (start instanceof Error) throw start;
        return { runId: start };
      }),
      pollRun: fromPromise(async () => {
        const step = polls[Math.min(calls.poll, polls.length - 1)];
        calls.poll += 1;
        if (!step) throw new Error('no poll scripted');
        if (step instanceof Error) throw step;
        return step;
      }),
      getRun: fromPromise(async () => {
        calls.getRun += 1;
        const run = options.getRun ?? runInfo();
        if (run instanceof Error) throw run;
        return run;
      }),
      cancelRun: fromPromise(async () => {
        calls.cancel += 1;
        const run = options.cancel ?? runInfo({ state: 'cancelled', signal: 'SIGTERM' });
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
  return { actor, calls, emitted };
}

const poll = (lines: string[], run: Partial<RunInfo> = {}): PollRunOutput => ({
  lines,
  run: runInfo(run),
});

afterEach(() => {
  vi.useRealTimers();
});

describe('trainingMachine', () => {
  it('idle → training.start → starting → running, with the request as given', async () => {
    const { actor, calls } = harness({ polls: [poll(['step 1/120'])], pollInterval: 60_000 });
    expect(actor.getSnapshot().value).toBe('idle');
    actor.send({ type: 'training.start', request });
    expect(selectTrainingStatus(actor.getSnapshot())).toBe('starting');
    expect(selectIsBusy(actor.getSnapshot())).toBe(true);
    await waitFor(actor, (s) => s.matches('running'));
    expect(calls.start).toEqual([request]);
    expect(actor.getSnapshot().context.runId).toBe('run-1');
    expect(actor.getSnapshot().context.percent).toBe(0);
    expect(selectRunToResume(actor.getSnapshot())).toBe('run-1');
  });

  it('running → polls every pollInterval (2000 ms by default) → finished at total; polling stops', async () => {
    vi.useFakeTimers();
    const polls = [
      poll(['step 30/120']),
      poll(['step 60/120']),
      poll(['step 120/120', 'saving']),
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
    expect(actor.getSnapshot().value).toBe('finished');
    expect(actor.getSnapshot().context.percent).toBe(100);
    expect(actor.getSnapshot().context.lines).toEqual(['step 120/120', 'saving']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.poll).toBe(3);
    expect(selectIsBusy(actor.getSnapshot())).toBe(false);
  });

  it('progress has two decimals and never goes backwards', async () => {
    const { actor } = harness({
      polls: [poll(['step 1/3']), poll(['step 0/3']), poll(['step 2/3']), poll(['step 3/3'])],
    });
    const seen: number[] = [];
    actor.subscribe((s) => seen.push(s.context.percent));
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('finished'));
    const distinct = [...new Set(seen)];
    expect(distinct).toEqual([0, 33.33, 66.67, 100]);
  });

  it('starting → non-OK start → idle, emitting the server text for the alert', async () => {
    const { actor, emitted, calls } = harness({
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
    const { actor, calls } = harness({
      polls: [
        poll(['step 10/100']),
        down,
        down,
        down,
        poll(['step 50/100']),
        poll(['step 100/100']),
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
    await waitFor(actor, (s) => s.matches('finished'));
  });

  it('running → the script exits non-zero → failed with its exit code', async () => {
    const { actor } = harness({
      polls: [
        poll(['step 1/120']),
        poll(['error: Missing Python packages: torch'], { state: 'failed', exit_code: 2 }),
      ],
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(selectFailure(actor.getSnapshot())).toEqual({
      message: 'The training script exited with code 2.',
      exitCode: 2,
    });
    expect(actor.getSnapshot().context.lines).toEqual(['error: Missing Python packages: torch']);
  });

  it('running → the service forgot the run (404) → failed', async () => {
    const { actor } = harness({ polls: [new HttpError('No run with id "run-1"', 404)] });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(selectFailure(actor.getSnapshot())?.message).toMatch(/no longer knows run run-1/);
  });

  it('running → training.cancel → cancelling → cancelled', async () => {
    const { actor, calls } = harness({ polls: [poll(['step 1/120'])], pollInterval: 60_000 });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'training.cancel' });
    expect(selectTrainingStatus(actor.getSnapshot())).toBe('cancelling');
    await waitFor(actor, (s) => s.matches('cancelled'));
    expect(calls.cancel).toBe(1);
    expect(selectIsBusy(actor.getSnapshot())).toBe(false);
  });

  it('a cancel that fails goes back to polling, which finds how the run ended', async () => {
    const { actor } = harness({
      polls: [poll(['step 120/120'], { state: 'succeeded', exit_code: 0 })],
      cancel: new HttpError('Run run-1 is not running (it is succeeded)', 409),
      pollInterval: 60_000,
    });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'training.cancel' });
    await waitFor(actor, (s) => s.matches('finished'));
    expect(actor.getSnapshot().context.lastError).toBeNull();
  });

  it('finished → training.start again starts a new run from 0%', async () => {
    const { actor, calls } = harness({ polls: [poll(['step 5/5'])] });
    actor.send({ type: 'training.start', request });
    await waitFor(actor, (s) => s.matches('finished'));
    actor.send({ type: 'training.start', request });
    expect(actor.getSnapshot().context.percent).toBe(0);
    expect(actor.getSnapshot().context.lines).toEqual([]);
    await waitFor(actor, (s) => s.matches('running') || s.matches('finished'));
    expect(calls.start).toHaveLength(2);
  });

  describe('resuming after a reload', () => {
    it('a run still going → running, polled at once', async () => {
      const { actor, calls } = harness({
        input: { resumeRunId: 'run-1' },
        getRun: runInfo({ progress: 40 }),
        polls: [poll(['step 50/100'])],
        pollInterval: 60_000,
      });
      await waitFor(actor, () => calls.poll === 1);
      await waitFor(actor, (s) => s.context.percent === 50);
      expect(actor.getSnapshot().matches('running')).toBe(true);
    });

    it('a run that ended meanwhile → finished / failed', async () => {
      const ok = harness({
        input: { resumeRunId: 'run-1' },
        getRun: runInfo({ state: 'succeeded', exit_code: 0, progress: 100 }),
      });
      await waitFor(ok.actor, (s) => s.matches('finished'));
      const bad = harness({
        input: { resumeRunId: 'run-1' },
        getRun: runInfo({ state: 'interrupted', error: 'The training service stopped.' }),
      });
      await waitFor(bad.actor, (s) => s.matches('failed'));
      expect(selectFailure(bad.actor.getSnapshot())?.message).toBe('The training service stopped.');
    });

    it('an unknown run → idle; a service that is down → keeps the run and polls', async () => {
      const gone = harness({
        input: { resumeRunId: 'run-1' },
        getRun: new HttpError('No run', 404),
      });
      await waitFor(gone.actor, (s) => s.matches('idle'));
      expect(gone.actor.getSnapshot().context.runId).toBeNull();
      const down = harness({
        input: { resumeRunId: 'run-1' },
        getRun: new Error('unreachable'),
        polls: [poll(['step 1/2'])],
        pollInterval: 60_000,
      });
      await waitFor(down.actor, (s) => s.matches('running'));
      expect(down.actor.getSnapshot().context).toMatchObject({ runId: 'run-1', pollFailures: 1 });
    });
  });
});
