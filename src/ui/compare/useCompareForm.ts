import { useState } from 'react';
import { checkSetting } from '../../shared/generation-settings';
import { defaultPair } from './defaults';
import { initialForm, settleForm, type FormContext, type FormFields } from './compare-form';

/**
 * Compare's form state. The stored form is settled against the route and the runs on each render
 * ({@link settleForm}), so a new `?run=` or a run's default pair shows at once without a state
 * update during render; the next edit stores the settled form with the change.
 */
export function useCompareForm(context: FormContext & { cap: number }) {
  const [stored, setStored] = useState(() => initialForm(context.route, context.cap));
  const [formError, setFormError] = useState<string | null>(null);
  const form = settleForm(stored, context);
  const run = context.runs.find((r) => r.id === form.runId) ?? null;
  return {
    form,
    /** Stores an edit of the form as it shows now. */
    edit: (change: Partial<FormFields>) =>
      setStored((s) => ({ ...settleForm(s, context), ...change })),
    /** The default pair of the run the questions come from (shown under the choices). */
    pair: run ? defaultPair(run, context.choices) : null,
    temperatureCheck: checkSetting('temperature', form.temperature, context.cap),
    maxTokensCheck: checkSetting('maxNewTokens', form.maxTokens, context.cap),
    formError,
    setFormError,
  };
}
