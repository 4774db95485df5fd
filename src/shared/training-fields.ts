/**
 * The training options, read from the one table that defines them (training-fields.json, which
 * training/finetune.py reads too): the POST /train schema entries, the trainer's command line,
 * the defaults per method, the form's checks and the Runs list's summary all come from here.
 */
import * as z from 'zod/mini';
import table from './training-fields.json';

type Method = 'lora' | 'full';

/** A value one option can hold. */
export type FieldValue = number | string | boolean;

const ValueSchema = z.union([z.number(), z.string(), z.boolean()]);

const TrainingFieldSchema = z.object({
  name: z.string().check(z.regex(/^[a-z][a-z0-9_]*$/)),
  type: z.enum(['int', 'number', 'enum', 'bool', 'string', 'template']),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  max_length: z.optional(z.number()),
  values: z.optional(z.array(z.string())),
  default: z.nullable(z.union([ValueSchema, z.object({ lora: ValueSchema, full: ValueSchema })])),
  flag: z.string().check(z.regex(/^--[a-z][a-z0-9_]*$/)),
  label: z.string(),
  unit: z.string(),
  help: z.string(),
  group: z.enum(['basic', 'method', 'advanced', 'auto']),
  required: z.boolean(),
});

/** One training option as the table defines it (see the table's `$comment`). */
export type TrainingField = z.infer<typeof TrainingFieldSchema>;

/** Every training option, in the table's order. */
export const TRAINING_FIELDS: readonly TrainingField[] = z.parse(
  z.array(TrainingFieldSchema),
  table.fields,
);

/** The field named `name`; throws for a name the table lacks (a programming error). */
export function trainingField(name: string): TrainingField {
  const field = TRAINING_FIELDS.find((f) => f.name === name);
  if (!field) throw new Error(`training-fields.json has no field "${name}"`);
  return field;
}

/** A number as a person reads it: 1,048,576 · 0.5 · 2e-5 (never 0.00002). */
export function formatFieldNumber(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  if (value !== 0 && Math.abs(value) < 1e-3) return value.toExponential().replace(/e-0*/, 'e-');
  return String(value);
}

/** The allowed values in words: "1–1,024", "one of cosine, linear, constant", "true or false". */
export function allowedText(field: TrainingField): string {
  if (field.type === 'bool') return 'true or false';
  if (field.type === 'enum') return `one of ${(field.values ?? []).join(', ')}`;
  if (field.type === 'string')
    return `printable characters without spaces, at most ${maxLength(field)}`;
  if (field.type === 'template')
    return `a Jinja template of at most ${formatFieldNumber(maxLength(field))} characters`;
  const min = field.min === undefined ? '' : formatFieldNumber(field.min);
  const max = field.max === undefined ? '' : formatFieldNumber(field.max);
  return `${min}–${max}`;
}

const isMissing = (iss: { input?: unknown }) => iss.input === undefined;

const typeError = (what: string) => (iss: { input?: unknown }) =>
  isMissing(iss) ? 'is required' : `must be ${what}`;

/** An int or number option: its type and its range, the messages naming the bound passed. */
function numberSchema(field: TrainingField): z.ZodMiniType<number> {
  if (field.type !== 'int' && field.type !== 'number')
    throw new Error(`training-fields.json: ${field.name} is not a number field`);
  const base =
    field.type === 'int'
      ? z.int({ error: typeError('an integer') })
      : z.number({ error: typeError('a number') });
  const { min, max } = field;
  const checks: z.core.$ZodCheck<number>[] = [];
  if (min !== undefined)
    checks.push(
      z.refine((v: number) => v >= min, {
        // At or below 0 for a field that must be positive reads best as "greater than 0".
        error: (iss) =>
          min > 0 && typeof iss.input === 'number' && iss.input <= 0
            ? 'must be greater than 0'
            : `must be at least ${formatFieldNumber(min)}`,
      }),
    );
  if (max !== undefined) checks.push(z.lte(max, `must be at most ${formatFieldNumber(max)}`));
  return base.check(...checks);
}

/** An enum option: one of the table's values (`T`: the values as TypeScript knows them). */
function choiceSchema<T extends string>(field: TrainingField): z.ZodMiniType<T> {
  const values = field.values ?? [];
  const quoted = values.map((v) => `"${v}"`);
  const words =
    quoted.length === 2 ? `${quoted[0]} or ${quoted[1]}` : `one of ${quoted.join(', ')}`;
  return z.custom<T>((v) => typeof v === 'string' && values.includes(v), {
    error: typeError(words),
  });
}

/** A string option's longest value (the table's max_length; training/fields.py reads the same). */
const maxLength = (field: TrainingField) => field.max_length ?? 200;

/**
 * A string option: printable ASCII without spaces (a branch, tag or commit name), at most the
 * table's max_length characters; training/fields.py checks the same.
 */
function textSchema(field: TrainingField): z.ZodMiniType<string> {
  const longest = maxLength(field);
  return z
    .string({ error: typeError('text') })
    .check(
      z.regex(/^[\x21-\x7e]*$/, 'must be printable characters without spaces'),
      z.maxLength(longest, `must be at most ${longest} characters`),
    );
}

/**
 * A template option (a chat template): any text without NUL (it travels as one command-line
 * argument), at most the table's max_length characters, sent as typed (its whitespace is part of
 * what it renders); training/fields.py checks the same.
 */
function templateSchema(field: TrainingField): z.ZodMiniType<string> {
  const longest = maxLength(field);
  return z.string({ error: typeError('text') }).check(
    z.refine((v: string) => !v.includes('\0'), 'must not contain NUL characters'),
    z.maxLength(longest, `must be at most ${formatFieldNumber(longest)} characters`),
  );
}

function boolSchema(): z.ZodMiniType<boolean> {
  return z.boolean({ error: typeError('true or false') });
}

/** The zod/mini schema of one option's value, with messages that name the allowed range. */
export function fieldSchema(field: TrainingField): z.ZodMiniType<FieldValue> {
  if (field.type === 'bool') return boolSchema();
  if (field.type === 'enum') return choiceSchema(field);
  if (field.type === 'string') return textSchema(field);
  if (field.type === 'template') return templateSchema(field);
  return numberSchema(field);
}

/**
 * The message for a value the option refuses ("must be at most 0.5"), or null when it is
 * allowed: what the form shows beside an out-of-range value.
 */
export function fieldError(field: TrainingField, value: unknown): string | null {
  const result = z.safeParse(fieldSchema(field), value);
  return result.success ? null : (result.error.issues[0]?.message ?? 'is invalid');
}

/**
 * The POST /train entries of every option, each with the table's type and range. Required and
 * optional as the table says (training-fields.test.ts checks this list against the table, so a
 * field added to the table fails there until it is here).
 */
export function trainingOptionShape() {
  const num = (name: string) => numberSchema(trainingField(name));
  const opt = (name: string) => z.optional(num(name));
  return {
    max_len: num('max_len'),
    repeat: num('repeat'),
    max_steps: num('max_steps'),
    lr: num('lr'),
    method: z.optional(choiceSchema<Method>(trainingField('method'))),
    export_base: z.optional(boolSchema()),
    epochs: opt('epochs'),
    batch_size: opt('batch_size'),
    grad_accum: opt('grad_accum'),
    lora_r: opt('lora_r'),
    lora_alpha: opt('lora_alpha'),
    lora_dropout: opt('lora_dropout'),
    warmup_ratio: opt('warmup_ratio'),
    lr_scheduler: z.optional(
      choiceSchema<'cosine' | 'linear' | 'constant'>(trainingField('lr_scheduler')),
    ),
    eval_fraction: opt('eval_fraction'),
    seed: opt('seed'),
    gradient_checkpointing: z.optional(
      choiceSchema<'auto' | 'on' | 'off'>(trainingField('gradient_checkpointing')),
    ),
    save_steps: opt('save_steps'),
    base_revision: z.optional(textSchema(trainingField('base_revision'))),
    gguf: z.optional(choiceSchema<'none' | 'Q8_0' | 'F16' | 'both'>(trainingField('gguf'))),
    chat_template: z.optional(templateSchema(trainingField('chat_template'))),
  };
}

/**
 * The trainer's flags for the options a request carries, in the table's order: a value flag for
 * each option sent (the required ones always are), a bool flag only when true. Options not sent
 * stay off the command line, so the trainer's own default applies and older trainers keep working.
 */
export function trainerArgs(request: Readonly<Partial<Record<string, unknown>>>): string[] {
  const args: string[] = [];
  for (const field of TRAINING_FIELDS) {
    const value = request[field.name];
    // An empty string option is its default (base_revision '': the main branch; chat_template
    // '': the base's own).
    if (value === undefined || value === null || value === '') continue;
    if (field.type === 'bool') {
      if (value === true) args.push(field.flag);
    } else if (typeof value === 'number' || typeof value === 'string') {
      args.push(field.flag, String(value));
    }
  }
  return args;
}

/** The option's default for a method (null: none, the option is left out). */
export function defaultFor(
  field: TrainingField | string,
  method: Method = 'lora',
): FieldValue | null {
  const f = typeof field === 'string' ? trainingField(field) : field;
  const value = f.default;
  if (value !== null && typeof value === 'object') return value[method];
  return value;
}

function numberDefault(name: string, method: Method): number {
  const value = defaultFor(name, method);
  if (typeof value !== 'number')
    throw new Error(`training-fields.json: ${name} has no number default`);
  return value;
}

/** The four values every run sends (PRODUCT.md §6) (the basic group), for a method. */
export function basicDefaults(method: Method = 'lora') {
  return {
    max_len: numberDefault('max_len', method),
    repeat: numberDefault('repeat', method),
    max_steps: numberDefault('max_steps', method),
    lr: numberDefault('lr', method),
  };
}

/** The options shown in the panel's Advanced section, in the table's order. */
export const ADVANCED_FIELDS: readonly TrainingField[] = TRAINING_FIELDS.filter(
  (f) => f.group === 'advanced',
);

/**
 * A run's options that differ from their defaults for its method, as "Learning rate 2e-5 ·
 * Batch size 4" (the table's labels): what the Runs list shows. Empty when all are defaults.
 */
export function optionSummary(
  options: Readonly<Partial<Record<string, unknown>>>,
  method: Method = 'lora',
): string {
  const parts: string[] = [];
  for (const field of TRAINING_FIELDS) {
    if (field.group === 'method' || field.group === 'auto') continue;
    const value = options[field.name];
    if (value === defaultFor(field, method)) continue;
    let shown: string;
    if (field.type === 'template' && typeof value === 'string')
      shown = `(${formatFieldNumber(value.length)} characters)`;
    else if (typeof value === 'number') shown = formatFieldNumber(value);
    else if (typeof value === 'string' || typeof value === 'boolean') shown = String(value);
    else continue;
    parts.push(`${field.label} ${shown}`);
  }
  return parts.join(' · ');
}

/** The table's options a request carries (the paths and anything else left out). */
export function sentOptions(
  request: Readonly<Partial<Record<string, unknown>>>,
): Record<string, FieldValue> {
  const options: Record<string, FieldValue> = {};
  for (const field of TRAINING_FIELDS) {
    const value = request[field.name];
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
      options[field.name] = value;
  }
  return options;
}
