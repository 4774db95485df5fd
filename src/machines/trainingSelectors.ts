/** Snapshot selectors of the training machine, for the panel (pure). */
import type {
  EvalPoint,
  MetricPoint,
  RunInfo,
  TrainedModel,
  TrainerInfo,
} from '../shared/training-api';
import type { TrainingSnapshot } from './trainingMachine';

export type TrainingStatus =
  'idle' | 'starting' | 'running' | 'saving' | 'cancelling' | 'finished' | 'failed' | 'cancelled';

/**
 * The lifecycle step the panel shows ('attaching' reads as 'idle'); 'saving' while the last step
 * is done and the trainer still runs (the service's phase).
 */
export const selectTrainingStatus = (s: TrainingSnapshot): TrainingStatus => {
  if (s.matches({ running: 'cancelling' })) return 'cancelling';
  if (s.matches('running')) return s.context.run?.phase === 'saving' ? 'saving' : 'running';
  if (s.matches('starting') || s.matches('resuming')) return 'starting';
  if (s.matches({ ended: 'finished' })) return 'finished';
  if (s.matches({ ended: 'failed' })) return 'failed';
  if (s.matches({ ended: 'cancelled' })) return 'cancelled';
  return 'idle'; // idle, or attaching
};
/** A run is being started, watched or cancelled: 'Training...' and the button disabled. */
export const selectIsBusy = (s: TrainingSnapshot): boolean =>
  s.matches('starting') || s.matches('resuming') || s.matches('running');
/** Progress percentage, 0–100 with two decimals. */
export const selectPercent = (s: TrainingSnapshot) => s.context.percent;
/** The last log lines (up to 10). */
export const selectLogLines = (s: TrainingSnapshot) => s.context.lines;
/** The run being watched or the last one, as the service last described it. */
export const selectRun = (s: TrainingSnapshot) => s.context.run;
/** The loss curve so far. */
export const selectPoints = (s: TrainingSnapshot): readonly MetricPoint[] => s.context.points;
/** The held-out loss points (empty when the trainer holds nothing out). */
export const selectEvalPoints = (s: TrainingSnapshot): readonly EvalPoint[] => s.context.evalPoints;
/** Several polls failed in a row: the service is not answering (the run is kept). */
export const selectUnreachable = (s: TrainingSnapshot) =>
  s.matches('running') && s.context.pollFailures >= s.context.unreachableAfter;
export const selectLastError = (s: TrainingSnapshot) => s.context.lastError;
/** Why the run failed, with its exit code when it had one. */
export const selectFailure = (s: TrainingSnapshot) =>
  s.matches({ ended: 'failed' })
    ? {
        message: s.context.failure ?? 'The run failed.',
        exitCode: s.context.run?.exit_code ?? null,
      }
    : null;
/** Where a finished run wrote its adapter (the service's output directory), once known. */
export const selectOutputDir = (s: TrainingSnapshot) =>
  s.matches({ ended: 'finished' }) ? (s.context.run?.output_dir ?? null) : null;
/** The service's runs, newest first, as last fetched (on load and when a run ends). */
export const selectRuns = (s: TrainingSnapshot): readonly RunInfo[] => s.context.runs;
/** The service's browser-ready models, as last fetched. */
export const selectTrainedModels = (s: TrainingSnapshot): readonly TrainedModel[] =>
  s.context.models;
/** The browser-ready model of the run shown (a finished one), when the service lists it. */
export const selectRunModel = (s: TrainingSnapshot): TrainedModel | undefined => {
  const id = s.context.run?.id;
  return id ? runModel(s.context.models, id) : undefined;
};

/** A run's own (fine-tuned) model among the service's models; its base export is not it. */
export function runModel(models: readonly TrainedModel[], runId: string): TrainedModel | undefined {
  return models.find((m) => m.run_id === runId && m.role !== 'base');
}

/** The service's trainer (GET /trainer, read with the catalog), or null before it answered. */
export const selectTrainer = (s: TrainingSnapshot): TrainerInfo | null => s.context.trainer;
