/**
 * What the Base model field suggests: the app's default base and an ungated one of its size, the
 * Hub ids of the in-browser models, and what the training service already holds (GET /models) —
 * a fine-tuned model's `merged/` folder (Hugging Face layout, trainable again) and each exported
 * base's source — with the bases its Hub cache holds marked "downloaded" (GET /hub-cache).
 */
import { DEFAULT_BASE_MODEL, type TrainedModel } from '../../shared/training-api';

export interface BaseModelOption {
  /** What the field gets: a Hub id or a folder on the training service. */
  value: string;
  label: string;
}

/** The merged model a finished run wrote (`<output_dir>/merged`). */
export function mergedFolder(outputDir: string): string {
  return `${outputDir.replace(/[\\/]+$/, '')}/merged`;
}

/**
 * A 3B instruct model the Hub serves without a licence to accept or a token (Qwen's research
 * licence is shown on its page, not gated): the default's alternative.
 */
export const UNGATED_ALTERNATIVE = 'Qwen/Qwen2.5-3B-Instruct';

/**
 * Organisations whose models the Hub serves only after their licence is accepted, signed in, and
 * with a token: Meta's Llama and Google's Gemma.
 */
const GATED = [/^meta-llama\//i, /^google\/(?:codegemma|gemma|medgemma|paligemma|recurrentgemma)/i];

/** Whether `base` is a Hub id known to be gated (not a folder). */
export function isGatedBase(base: string): boolean {
  return GATED.some((pattern) => pattern.test(base.trim()));
}

/**
 * The default first, then its ungated alternative, the in-browser models, the service's, and the
 * rest of its Hub cache; each value once; the cached ones marked "downloaded".
 */
export function baseModelOptions(
  suggestions: readonly { id: string; label: string }[],
  models: readonly TrainedModel[],
  cached: readonly string[] = [],
): BaseModelOption[] {
  const options: BaseModelOption[] = [
    { value: DEFAULT_BASE_MODEL, label: 'the default base (3B, instruct)' },
    { value: UNGATED_ALTERNATIVE, label: '3B, instruct, not gated on the Hub' },
    ...suggestions.map((m) => ({ value: m.id, label: m.label })),
    ...models.map((m) =>
      m.role === 'base'
        ? { value: m.base_model, label: `base of ${m.name}, on the training service` }
        : {
            value: mergedFolder(m.output_dir),
            label: `${m.name} (fine-tuned), on the training service`,
          },
    ),
    ...cached.map((id) => ({ value: id, label: 'on the training service' })),
  ];
  const seen = new Set<string>();
  const downloaded = new Set(cached);
  return options
    .filter((o) => !seen.has(o.value) && seen.add(o.value))
    .map((o) => (downloaded.has(o.value) ? { ...o, label: `${o.label} (downloaded)` } : o));
}
