/** Snapshot selectors of the evaluation machine: the one place components read it through. */
import type { EvaluationRecord, EvaluationStatus } from '../shared/evaluation';
import { toRecord, type EvaluationSnapshot } from './evaluationMachine';

/** The phase shown: idle, loading or answering a model, stopping, done, stopped, failed. */
export type EvaluationPhase =
  | 'idle'
  | 'loadingA'
  | 'answeringA'
  | 'loadingB'
  | 'answeringB'
  | 'stopping'
  | 'done'
  | 'stopped'
  | 'failed';

export function selectPhase(s: EvaluationSnapshot): EvaluationPhase {
  const a = s.context.side === 'a';
  if (s.matches({ running: 'loading' })) return a ? 'loadingA' : 'loadingB';
  if (s.matches({ running: 'answering' })) return a ? 'answeringA' : 'answeringB';
  if (s.matches('running')) return 'stopping';
  if (s.matches({ ended: 'done' })) return 'done';
  if (s.matches({ ended: 'stopped' })) return 'stopped';
  if (s.matches({ ended: 'failed' })) return 'failed';
  return 'idle';
}

/** Whether the evaluation holds the worker (Stop is offered). */
export const selectIsRunning = (s: EvaluationSnapshot) => s.matches('running');
export const selectError = (s: EvaluationSnapshot) => s.context.error;
export const selectStartError = (s: EvaluationSnapshot) => s.context.startError;
export const selectSaveError = (s: EvaluationSnapshot) => s.context.saveError;
export const selectLoadFiles = (s: EvaluationSnapshot) => s.context.files;
export const selectPartial = (s: EvaluationSnapshot) => s.context.partial;
/** The label of the model the chat holds since the evaluation ended (null: none handed back). */
export const selectHandedBack = (s: EvaluationSnapshot) => s.context.handedBack;
export const selectSaves = (s: EvaluationSnapshot) => s.context.saves;
/** Each model's "Checked on this GPU" status (null: nothing to check, or not loaded yet). */
export const selectChecks = (s: EvaluationSnapshot) => s.context.checks;

/** The evaluation as a record (what is saved and exported), null before the first start. */
export function selectRecord(s: EvaluationSnapshot): EvaluationRecord | null {
  const phase = selectPhase(s);
  const status: EvaluationStatus =
    phase === 'done' || phase === 'stopped' || phase === 'failed' ? phase : 'running';
  return toRecord(s.context, status, s.context.setup?.createdAt);
}
export const selectRows = (s: EvaluationSnapshot) => s.context.rows;
export const selectSetup = (s: EvaluationSnapshot) => s.context.setup;
export const selectStatusText = (s: EvaluationSnapshot) => s.context.statusText;
export const selectLiveTps = (s: EvaluationSnapshot) => s.context.liveTps;
export const selectSide = (s: EvaluationSnapshot) => s.context.side;
