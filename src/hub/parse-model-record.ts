import { PIPELINE_TYPES } from '@huggingface/tasks';
import * as z from 'zod/mini';
import { HubError } from './hub-error';
import type { ModelRecord, ParsedModelRecord, RecordIssue } from './types';
import { errorMessage } from '../shared/errors';

/**
 * Largest record accepted, in characters of JSON. Real `/api/models/{id}` answers stay well below
 * it, even for repos with thousands of files; past it a paste is a mistake, and parsing it would
 * freeze the page.
 */
export const MAX_RECORD_CHARS = 2_000_000;

/**
 * What a misfit value parses to, in place of the value: {@link keep} takes it out afterwards and
 * reports it at the path where it sat (`report` absent: taken out quietly).
 */
class Dropped {
  constructor(readonly report?: (path: string) => RecordIssue) {}
}

/** `schema`, or, when the value misfits it, a {@link Dropped} (reported through `report`). */
function drop<T extends z.ZodMiniType>(
  schema: T,
  report?: (input: unknown, path: string) => RecordIssue,
) {
  const dropped = z.transform(
    (input: unknown) => new Dropped(report && ((path) => report(input, path))),
  );
  return z.union([schema, dropped]);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "<path> should be <describe>, got <shown>; ignored." */
function misfit(describe: string, show = typeName) {
  return (input: unknown, path: string): RecordIssue => ({
    path,
    message: `${path} should be ${describe}, got ${show(input)}; ignored.`,
  });
}

/** An optional field of `schema`: a misfit is dropped and reported as not `describe`. */
function field<T extends z.ZodMiniType>(schema: T, describe: string, show = typeName) {
  return z.optional(drop(schema, misfit(describe, show)));
}

/**
 * `schema` (an object's), or a {@link Dropped} when the value is not an object or a required field
 * (a bare schema in its shape, not a {@link field}) is missing or misfits: reported at that field.
 */
function dropObject<T extends z.ZodMiniObject>(schema: T) {
  return drop(schema, (input, path) => {
    // Only a misfit comes here: parsing it again gives zod's issue (which field, what it expected).
    const issue = schema.safeParse(input).error?.issues[0];
    const key = issue?.path[0];
    if (!isPlainObject(input) || issue === undefined || key === undefined) {
      return misfit('an object')(input, path);
    }
    const at = `${path}.${String(key)}`;
    const value = input[String(key)];
    if (value === undefined) return { path: at, message: `${at} is missing; ${path} ignored.` };
    return misfit(issue.code === 'invalid_type' ? `a ${issue.expected}` : 'valid')(value, at);
  });
}

/** An optional object of `shape`'s fields, other keys left out; see {@link dropObject}. */
function fields<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.optional(dropObject(z.object(shape)));
}

const str = field(z.string(), 'a string');
const num = field(z.number(), 'a number');
const bool = field(z.boolean(), 'a boolean');
const strings = z.array(z.string());
const strList = field(strings, 'a list of strings', (v) =>
  Array.isArray(v)
    ? `a list holding ${typeName(v.find((x) => typeof x !== 'string'))}`
    : typeName(v),
);
const pipeline = field(z.enum(PIPELINE_TYPES), 'a known task id', (v) =>
  typeof v === 'string' ? `"${v}"` : typeName(v),
);

/**
 * A widget example as ModelData types it (each of its shapes has a required key); the generators
 * read `text`, or `source_sentence` with `sentences`. An image's `src` example is kept too. Other
 * keys pass through unchecked.
 */
const widgetExample = drop(
  z.union([
    z.looseObject({ text: z.string() }),
    z.looseObject({ source_sentence: z.string(), sentences: strings }),
    z.looseObject({ src: z.string() }),
  ]),
  misfit(
    'a widget example (an object with a string "text", "src", or "source_sentence" and "sentences")',
  ),
);

const chatTemplate = field(
  z.union([
    z.string(),
    // ModelData requires both keys of a named template: an item missing one is dropped quietly.
    z.array(drop(z.object({ name: z.string(), template: z.string() }))),
  ]),
  'a string or a list of named templates',
);

/** The fields each generator of @huggingface/tasks may read, checked before they see them. */
const SCHEMA = z.object({
  tags: strList,
  pipeline_tag: pipeline,
  library_name: str,
  inference: str,
  private: bool,
  mask_token: str,
  widgetData: field(z.array(widgetExample), 'a list'),
  cardData: fields({
    base_model: field(z.union([z.string(), strings]), 'a string or a list of strings'),
    instance_prompt: field(z.nullable(z.string()), 'a string'),
    inference: field(z.union([z.boolean(), z.looseObject({})]), 'a boolean or an object'),
  }),
  config: fields({
    architectures: strList,
    model_type: str,
    // ModelData types these as strings, and the generators read only strings; the Hub also holds
    // lists (`AutoTokenizer: [slow, fast]`): left out quietly, as nothing reads them.
    auto_map: field(z.record(z.string(), drop(z.string())), 'an object'),
    quantization_config: fields({
      bits: num,
      load_in_4bit: bool,
      load_in_8bit: bool,
      quant_method: str,
    }),
    tokenizer_config: z.optional(dropObject(z.looseObject({ chat_template: chatTemplate }))),
    processor_config: fields({ chat_template: str }),
    chat_template_jinja: str,
    adapter_transformers: fields({ model_name: str, model_class: str }),
    diffusers: fields({ _class_name: str }),
    sklearn: fields({ model: fields({ file: str }), model_format: str }),
    speechbrain: fields({
      speechbrain_interface: str,
      vocoder_interface: str,
      vocoder_model_id: str,
    }),
    peft: fields({ base_model_name_or_path: str, task_type: str }),
    keras_hub: fields({ tasks: strList }),
  }),
  transformersInfo: fields({
    auto_model: z.string(),
    custom_class: str,
    pipeline_tag: pipeline,
    processor: str,
  }),
  siblings: field(z.array(dropObject(z.object({ rfilename: z.string() }))), 'a list'),
  gguf: fields({
    total: z.number(),
    architecture: str,
    context_length: num,
    chat_template: str,
  }),
});

/** A parsed value with its {@link Dropped} parts taken out. */
type Kept<T> = T extends Dropped
  ? never
  : T extends readonly (infer U)[]
    ? Kept<U>[]
    : T extends object
      ? { [K in keyof T]: Kept<T[K]> }
      : T;

/**
 * A copy of `value` without its {@link Dropped} parts (an object's key, a list's item), each
 * reported into `issues` at its path. Its type says so: only a Dropped is taken out.
 */
function keep<T>(value: T, path: string, issues: RecordIssue[]): Kept<T>;
function keep(value: unknown, path: string, issues: RecordIssue[]): unknown {
  const kept = (item: unknown, at: string): boolean => {
    if (!(item instanceof Dropped)) return true;
    if (item.report) issues.push(item.report(at));
    return false;
  };
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return items.flatMap((item, i) => {
      const at = `${path}[${i}]`;
      return kept(item, at) ? [keep(item, at, issues)] : [];
    });
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (item !== undefined && kept(item, at)) out[key] = keep(item, at, issues);
  }
  return out;
}

/**
 * Turns a model record (pasted JSON text, or an already parsed Hub answer) into a validated
 * {@link ModelRecord}. Fields the snippet generators read are type-checked: a wrong-typed field
 * is dropped and reported in `issues`, never passed on to crash a generator. Unknown fields are
 * left out. Throws {@link HubError}: `too-large` past {@link MAX_RECORD_CHARS}, `invalid-json`,
 * `invalid-record` (not an object, or no usable `id`).
 */
export function parseModelRecord(params: {
  /** JSON text (pasted), or a value already parsed (a Hub answer). */
  json: unknown;
  maxChars?: number;
}): ParsedModelRecord {
  const { json, maxChars = MAX_RECORD_CHARS } = params;
  let data: unknown = json;
  if (typeof json === 'string') {
    if (json.length > maxChars) {
      throw new HubError(
        'too-large',
        `The record is ${formatChars(json.length)}; the limit is ${formatChars(maxChars)}. Paste the record of a single model.`,
      );
    }
    if (json.trim() === '')
      throw new HubError('invalid-json', 'Paste a model record (JSON) first.');
    try {
      data = JSON.parse(json);
    } catch (cause) {
      const reason = errorMessage(cause);
      throw new HubError('invalid-json', `This is not valid JSON: ${reason}`, { cause });
    }
  }
  if (!isPlainObject(data)) {
    throw new HubError(
      'invalid-record',
      `A model record is a JSON object with an "id"; got ${typeName(data)}.`,
    );
  }
  const id = data.id ?? data.modelId;
  if (typeof id !== 'string' || id.trim() === '') {
    throw new HubError(
      'invalid-record',
      'The record has no "id": a model record names its model, e.g. "owner/name".',
    );
  }
  const issues: RecordIssue[] = [];
  // Never throws: `data` is an object, and each field of SCHEMA parses to its value or a Dropped.
  const checked = keep(SCHEMA.parse(data), '', issues);
  const record: ModelRecord = { inference: '', tags: [], ...checked, id: id.trim() };
  return { record, issues };
}

function formatChars(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : `${Math.ceil(n / 1000)} kB`;
}
