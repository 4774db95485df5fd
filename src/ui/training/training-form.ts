/** The training panel's fields, kept in localStorage so a reload keeps what was typed. */
import { DEFAULT_BASE_MODEL, type TrainingMethod } from '../../shared/training-api';

/** The training form: script, output folder, data file, base model and method. */
export interface TrainingForm {
  scriptPath: string;
  outputDir: string;
  dataFile: string;
  baseModel: string;
  method: TrainingMethod;
}

/**
 * Defaults that work with the service's default roots (paths relative to the repo root). The data
 * file starts empty: a fresh clone has no dataset, and 'Use for training' fills it.
 */
export const DEFAULT_TRAINING_FORM: TrainingForm = {
  scriptPath: 'training/finetune.py',
  outputDir: 'service-data/outputs/lora',
  dataFile: '',
  baseModel: DEFAULT_BASE_MODEL,
  method: 'lora',
};

const FORM_KEY = 'training.form.v1';

export function loadForm(): TrainingForm {
  try {
    const raw = globalThis.localStorage?.getItem(FORM_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    const saved: Partial<Record<string, unknown>> =
      typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
    const pick = (key: Exclude<keyof TrainingForm, 'method'>) => {
      const value = saved[key];
      return typeof value === 'string' ? value : DEFAULT_TRAINING_FORM[key];
    };
    return {
      scriptPath: pick('scriptPath'),
      outputDir: pick('outputDir'),
      dataFile: pick('dataFile'),
      baseModel: pick('baseModel'),
      method: saved.method === 'full' ? 'full' : 'lora',
    };
  } catch {
    return { ...DEFAULT_TRAINING_FORM };
  }
}

export function saveForm(form: TrainingForm) {
  try {
    globalThis.localStorage?.setItem(FORM_KEY, JSON.stringify(form));
  } catch {
    // storage full or disabled: the values just are not kept
  }
}
