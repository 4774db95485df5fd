/** Snapshot selectors of the model machine: the one place components read it through. */
import type { ModelSnapshot } from './modelMachine';
import { missingVariantMessage, modelsWithoutF16 } from '../shared/models';
import { CHECKING, type CheckStatus } from '../shared/reference-check';

export type ModelStatus = 'none' | 'loading' | 'failed' | 'ready' | 'lost';
const STATUSES = ['none', 'failed', 'ready', 'lost'] as const;
export const selectModelStatus = (s: ModelSnapshot): ModelStatus =>
  STATUSES.find((status) => s.matches(status)) ?? 'loading';
export const selectSelectedModel = (s: ModelSnapshot) => s.context.selected;
export const selectProgressItems = (s: ModelSnapshot) => s.context.files;
export const selectLoadError = (s: ModelSnapshot) => s.context.error;
export const selectStatusText = (s: ModelSnapshot) => s.context.statusText;
/** Load is enabled only with a selection, never after an error (PRODUCT.md §4), and not for the loaded model. */
export const selectCanLoad = (s: ModelSnapshot) =>
  (s.matches('none') || s.matches('ready')) &&
  s.can({ type: 'model.load' }) &&
  !s.context.plan?.missing?.length;
export const selectDownloadPlan = (s: ModelSnapshot) => s.context.plan;
/** Download sizes known so far, by model (dropdown hints). */
export const selectSizes = (s: ModelSnapshot) => s.context.sizes;
/**
 * Why the selected model cannot load here, in one sentence (its variant's files are missing), or
 * null. Load stays disabled while this is shown.
 */
export const selectMissingVariant = (s: ModelSnapshot): string | null => {
  const { plan, models, selected, shaderF16 } = s.context;
  const option = models.find((m) => m.value === selected);
  if (!plan?.missing?.length || !option) return null;
  return missingVariantMessage({
    label: option.label,
    id: plan.id,
    dtype: plan.dtype,
    missing: plan.missing,
    isFallback: !shaderF16 && plan.dtype !== option.dtype,
    runsWithoutF16: modelsWithoutF16(models),
  });
};

/**
 * "Checked on this GPU" for the loaded model: `CHECKING` while the worker replays the trainer's
 * reference, then its outcome (src/shared/reference-check.ts); null when there is nothing to say
 * (not loaded, or not a model the trainer exported).
 */
export function selectReferenceCheck(s: ModelSnapshot): CheckStatus {
  if (s.matches({ ready: 'checking' })) return CHECKING;
  if (s.matches({ ready: 'checked' })) return s.context.check;
  return null;
}
export const selectIsModelReady = (s: ModelSnapshot) => s.matches('ready');
export const selectIsModelLoading = (s: ModelSnapshot) => s.matches('loading');
export const selectModelOptions = (s: ModelSnapshot) => s.context.models;
