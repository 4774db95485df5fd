/**
 * One mock run and its simulation: created from a POST /train body, it advances `stepsPerPoll`
 * steps each time its log is read (the loss, the learning rate and, when entries are held out,
 * one held-out loss per poll), spends one poll saving, then ends as its scenario says.
 */
import {
  DEFAULT_EVAL_FRACTION,
  RESUMABLE_STATES,
  startingRunInfo,
  type DatasetEntry,
  type EvalPoint,
  type MetricPoint,
  type RunInfo,
  type TrainRequest,
} from '../../src/shared/training-api';
import { sentOptions } from '../../src/shared/training-fields';
import { MOCK_MESSAGES, type MockSplit, type TrainingScenario } from './fixtures';

export interface MockRun {
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

const now = () => new Date().toISOString();

/**
 * The `download` scenario's base: the files of a 3B instruct model in bf16 (names and sizes as the
 * Hub lists them), fetched over `DOWNLOAD_POLLS` polls before training starts, one
 * `{"download": …}` line a poll as training/hub_download.py prints them.
 */
const DOWNLOAD_FILES: readonly [string, number][] = [
  ['config.json', 878],
  ['tokenizer.json', 9_085_657],
  ['model-00001-of-00002.safetensors', 4_965_799_096],
  ['model-00002-of-00002.safetensors', 1_459_729_952],
];
const DOWNLOAD_POLLS = 4;
const DOWNLOAD_RATE = 48_000_000;

/** The download line after `poll` of `DOWNLOAD_POLLS` polls (0: the start). */
function downloadLineAt(poll: number): string {
  const total = DOWNLOAD_FILES.reduce((sum, [, size]) => sum + size, 0);
  const bytes = Math.round((total * poll) / DOWNLOAD_POLLS);
  let before = 0;
  let filesDone = 0;
  let current: [string, number] | undefined;
  for (const file of DOWNLOAD_FILES) {
    if (before + file[1] <= bytes) {
      before += file[1];
      filesDone += 1;
    } else {
      current = file;
      break;
    }
  }
  return JSON.stringify({
    download: {
      file: current?.[0] ?? null,
      file_bytes: bytes - before,
      file_total: current?.[1] ?? 0,
      bytes,
      total,
      files_done: filesDone,
      files: DOWNLOAD_FILES.length,
      cached_bytes: 0,
      bytes_per_second: poll === 0 ? 0 : DOWNLOAD_RATE,
    },
  });
}

export function newRun(
  id: string,
  sent: TrainRequest,
  entries: DatasetEntry[],
  scenario: TrainingScenario,
): MockRun {
  const evalFraction = sent.eval_fraction ?? DEFAULT_EVAL_FRACTION;
  return {
    entries,
    evalFraction,
    split: evalFraction > 0 ? 'held-out' : 'missing',
    exportBase: sent.export_base === true,
    scenario,
    polls: 0,
    log:
      scenario === 'download'
        ? [`loading ${sent.base_model}`, downloadLineAt(0)]
        : [`loading ${sent.base_model}`, `step 0/${sent.max_steps}`],
    metrics: [],
    evals: [],
    info: {
      ...startingRunInfo(id, {
        script_path: sent.script_path,
        base_model: sent.base_model,
        output_dir: sent.output_dir,
        data_file: sent.data_file,
        started_at: now(),
      }),
      current: 0,
      total: sent.max_steps,
      method: sent.method ?? 'lora',
      options: sentOptions(sent),
      base_model_id: null,
    },
  };
}

/** The run's output folder's name (a trained model's name). */
export const folderOf = (run: MockRun) =>
  run.info.output_dir.split('/').filter(Boolean).pop() ?? 'run';
export const modelIdOf = (run: MockRun) => `trained/${folderOf(run)}`;

/** Mock runs save a checkpoint every 10 steps: the newest one a run reached, or null. */
export function checkpointOf(run: MockRun): number | null {
  const step = Math.floor((run.info.current ?? 0) / 10) * 10;
  return step > 0 ? step : null;
}

/** The run ends: its end time and duration, its newest checkpoint, and `patch`. */
export function finish(run: MockRun, patch: Partial<RunInfo>): void {
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

/** One poll of a running run's log: the next steps, or the end. */
export function advance(run: MockRun, stepsPerPoll: number): void {
  if (run.info.state !== 'running') return;
  run.polls += 1;
  if (run.scenario === 'fail-run' && run.polls >= 2) {
    run.log.push('Traceback (most recent call last):', MOCK_MESSAGES.runError);
    finish(run, { state: 'failed', exit_code: 1 });
    return;
  }
  const total = run.info.total ?? 1;
  if (run.scenario === 'download' && run.polls <= DOWNLOAD_POLLS) {
    run.log.push(downloadLineAt(run.polls));
    if (run.polls === DOWNLOAD_POLLS) run.log.push(`step 0/${total}`);
    return;
  }
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
    run.evals.push({ seq: run.evals.length, step: to, loss, time: (Date.now() - started) / 1000 });
    // Before the step line it follows, so a log's last line stays the progress (`step N/M`).
    run.log.splice(run.log.length - 1, 0, JSON.stringify({ eval_loss: loss, step: to }));
    run.info.last_eval_loss = loss;
  }
  run.info.current = to;
  run.info.progress = Math.round((to / total) * 10_000) / 100;
  // The last step is printed; the next poll finds the trainer done saving.
  if (to >= total) run.info.phase = 'saving';
}
