/**
 * What the Base model field suggests: the app's default base, the Hub ids of the in-browser
 * models, and what the training service already holds (GET /models) — a fine-tuned model's
 * `merged/` folder (Hugging Face layout, trainable again) and each exported base's source.
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

/** The default first, then the in-browser models, then the service's; each value once. */
export function baseModelOptions(
  suggestions: readonly { id: string; label: string }[],
  models: readonly TrainedModel[],
): BaseModelOption[] {
  const options: BaseModelOption[] = [
    { value: DEFAULT_BASE_MODEL, label: 'the default base (3B, instruct)' },
    ...suggestions.map((m) => ({ value: m.id, label: m.label })),
    ...models.map((m) =>
      m.role === 'base'
        ? { value: m.base_model, label: `base of ${m.name}, on the training service` }
        : {
            value: mergedFolder(m.output_dir),
            label: `${m.name} (fine-tuned), on the training service`,
          },
    ),
  ];
  const seen = new Set<string>();
  return options.filter((o) => !seen.has(o.value) && seen.add(o.value));
}
