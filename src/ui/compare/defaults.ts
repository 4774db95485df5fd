/**
 * Compare's model choices: every model the picker offers (the app's models, Hub "Load in chat"
 * models, trained models) plus what GET /models lists (trained models and base exports), and the
 * default pair for a finished run: B = its trained model, A = its base (see {@link defaultPair}).
 */
import { trainedModelOption, type ModelOption } from '../../shared/models';
import type { RunInfo, TrainedModel } from '../../shared/training-api';

/** The picker's entries, then the service's models not in it yet (base exports named as such). */
export function modelChoices(
  picker: readonly ModelOption[],
  trained: readonly TrainedModel[],
  serviceUrl: string,
): ModelOption[] {
  const known = new Set(picker.map((m) => m.value));
  const extra = trained
    .filter((m) => !known.has(m.id))
    .map((m) => {
      const option = trainedModelOption(m, serviceUrl);
      return m.role === 'base' ? { ...option, label: `${m.name} (base export)` } : option;
    });
  return [...picker, ...extra];
}

export interface DefaultPair {
  a: string | null;
  b: string | null;
  /** What was chosen and why, or why A could not be: shown under the choices. */
  note: string;
}

/**
 * B = the run's trained model; A = the in-browser model made from the run's base model (its Hub
 * `source`), else the trainer's browser export of the base (`base_model_id`, role `base`), else
 * none (the user picks A).
 */
export function defaultPair(run: RunInfo, choices: readonly ModelOption[]): DefaultPair {
  const has = (value: string | null | undefined) =>
    value ? (choices.find((m) => m.value === value) ?? null) : null;
  const b = has(run.model_id);
  const inBrowser = choices.find(
    (m) => m.source === run.base_model && !m.value.startsWith('trained/'),
  );
  const exported = has(run.base_model_id);
  const a = inBrowser ?? exported;
  const bText = b
    ? `B is the run's fine-tuned model, ${b.label}.`
    : `Run ${run.id} has no browser-ready model${run.model_error ? ` (${run.model_error})` : ''}: pick B.`;
  const aText = inBrowser
    ? `A is ${inBrowser.label}, the in-browser model made from its base ${run.base_model}.`
    : exported
      ? `A is the trainer's browser export of its base ${run.base_model} (${exported.label}).`
      : `No in-browser model is made from its base ${run.base_model}, and the run made no browser export of it (export_base): pick A yourself.`;
  return { a: a?.value ?? null, b: b?.value ?? null, note: `${bText} ${aText}` };
}
