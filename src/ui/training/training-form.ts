/** The training panel's fields, kept in localStorage so a reload keeps what was typed. */
import { DEFAULT_BASE_MODEL, type TrainingMethod } from '../../shared/training-api';
import {
  TRAINING_FIELDS,
  defaultFor,
  fieldError,
  type FieldValue,
  type TrainingField,
} from '../../shared/training-fields';

/**
 * The training form: script, output folder, data file, base model, method, and the options of
 * the Advanced section as typed (by the table's names; absent or '' = the default).
 */
export interface TrainingForm {
  scriptPath: string;
  outputDir: string;
  dataFile: string;
  baseModel: string;
  method: TrainingMethod;
  options: Record<string, string>;
}

/** The options the Advanced section offers: PRODUCT.md's four values, then the advanced ones. */
export const FORM_FIELDS: readonly TrainingField[] = TRAINING_FIELDS.filter(
  (f) => f.group === 'basic' || f.group === 'advanced',
);

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
  options: {},
};

const FORM_KEY = 'training.form.v1';

export function loadForm(): TrainingForm {
  try {
    const raw = globalThis.localStorage?.getItem(FORM_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    const saved: Partial<Record<string, unknown>> =
      typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
    const pick = (key: Exclude<keyof TrainingForm, 'method' | 'options'>) => {
      const value = saved[key];
      return typeof value === 'string' ? value : DEFAULT_TRAINING_FORM[key];
    };
    return {
      scriptPath: pick('scriptPath'),
      outputDir: pick('outputDir'),
      dataFile: pick('dataFile'),
      baseModel: pick('baseModel'),
      method: saved.method === 'full' ? 'full' : 'lora',
      options: savedOptions(saved.options),
    };
  } catch {
    return { ...DEFAULT_TRAINING_FORM };
  }
}

/** Saved options: only the table's fields with text values (forms saved before options: none). */
function savedOptions(raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null) return {};
  const options: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string' && FORM_FIELDS.some((f) => f.name === name))
      options[name] = value;
  }
  return options;
}

/** One typed value: its number (or text for a choice), or the reason it is refused. */
function readValue(field: TrainingField, text: string): FieldValue | { error: string } {
  let value: FieldValue = text;
  if (field.type === 'int' || field.type === 'number') {
    value = Number(text);
    if (!Number.isFinite(value))
      return { error: field.type === 'int' ? 'must be an integer' : 'must be a number' };
  }
  const error = fieldError(field, value);
  return error === null ? value : { error };
}

/** An option the form refuses, with the allowed values to show beside it. */
export interface OptionError {
  name: string;
  message: string;
}

/**
 * The options a start sends: PRODUCT.md's four values always (the method's default unless typed),
 * the others only when typed and different from the method's default; and what is refused.
 */
export function formOptions(form: Pick<TrainingForm, 'method' | 'options'>): {
  values: Record<string, FieldValue>;
  errors: OptionError[];
} {
  const values: Record<string, FieldValue> = {};
  const errors: OptionError[] = [];
  for (const field of FORM_FIELDS) {
    const fallback = defaultFor(field, form.method);
    const typed = form.options[field.name] ?? '';
    if (typed.trim() === '') {
      if (field.group === 'basic' && fallback !== null) values[field.name] = fallback;
      continue;
    }
    // A template is sent as typed (its whitespace renders); every other value trimmed.
    const value = readValue(field, field.type === 'template' ? typed : typed.trim());
    if (typeof value === 'object') errors.push({ name: field.name, message: value.error });
    else if (field.group === 'basic' || value !== fallback) values[field.name] = value;
  }
  return { values, errors };
}

export function saveForm(form: TrainingForm) {
  try {
    globalThis.localStorage?.setItem(FORM_KEY, JSON.stringify(form));
  } catch {
    // storage full or disabled: the values just are not kept
  }
}
