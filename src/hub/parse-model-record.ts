import { PIPELINE_TYPES, type PipelineType } from '@huggingface/tasks';
import { HubError } from './hub-error';
import type { ModelRecord, ParsedModelRecord, RecordIssue } from './types';
import { errorMessage } from '../shared/errors';

/** The Hub's pipeline names, each mapped to itself: a lookup that returns it typed. */
const PIPELINES: ReadonlyMap<string, PipelineType> = new Map(PIPELINE_TYPES.map((p) => [p, p]));

/**
 * Largest record accepted, in characters of JSON. Real `/api/models/{id}` answers are a few KB to a
 * few hundred KB (repos with thousands of files); past this a paste is a mistake, and parsing it
 * would freeze the page.
 */
export const MAX_RECORD_CHARS = 2_000_000;

const DROPPED = Symbol('dropped');
type Dropped = typeof DROPPED;

/** Where a value sits, and where its issues go (`quiet`: a trial of oneOf, nothing recorded). */
interface At {
  path: string;
  issues: RecordIssue[];
  quiet: boolean;
}

/**
 * A field kind of the schema: what a generator of @huggingface/tasks may read there. `check`
 * returns the value (cleaned of wrong-typed parts) as a T, or DROPPED after recording why.
 */
interface Spec<T> {
  /** What the field should be, for the messages: 'a string', 'a list of strings'. */
  readonly describe: string;
  readonly check: (value: unknown, at: At) => T | Dropped;
}

/** The type a spec accepts. */
type Infer<S> = S extends Spec<infer T> ? T : never;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isList(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Records that the value at `at.path` is not `describe` (shown as `shown`); drops it. */
function reject(describe: string, shown: string, at: At): Dropped {
  if (!at.quiet) {
    at.issues.push({
      path: at.path,
      message: `${at.path} should be ${describe}, got ${shown}; ignored.`,
    });
  }
  return DROPPED;
}

/** A leaf kind: `take` returns the value when it fits, else DROPPED; `show` names a misfit. */
function leaf<T>(
  describe: string,
  take: (value: unknown) => T | Dropped,
  show: (value: unknown) => string = typeName,
): Spec<T> {
  return {
    describe,
    check: (value, at) => {
      const out = take(value);
      return out === DROPPED ? reject(describe, show(value), at) : out;
    },
  };
}

const str = leaf('a string', (v) => (typeof v === 'string' ? v : DROPPED));
const num = leaf('a number', (v) => (typeof v === 'number' ? v : DROPPED));
const bool = leaf('a boolean', (v) => (typeof v === 'boolean' ? v : DROPPED));
const strList = leaf(
  'a list of strings',
  (v) => (isList(v) && v.every(isString) ? v : DROPPED),
  (v) => (isList(v) ? `a list holding ${typeName(v.find((x) => !isString(x)))}` : typeName(v)),
);
const pipeline = leaf(
  'a known task id',
  (v) => (typeof v === 'string' ? (PIPELINES.get(v) ?? DROPPED) : DROPPED),
  (v) => (typeof v === 'string' ? `"${v}"` : typeName(v)),
);

/** `spec`, or null. */
function nullable<T>(spec: Spec<T>): Spec<T | null> {
  return {
    describe: `${spec.describe} or null`,
    check: (value, at) => (value === null ? null : spec.check(value, at)),
  };
}

/** A list whose items fit `spec`; an item that does not is dropped (and reported). */
function arrayOf<T>(spec: Spec<T>): Spec<T[]> {
  const describe = 'a list';
  return {
    describe,
    check: (value, at) => {
      if (!isList(value)) return reject(describe, typeName(value), at);
      const kept: T[] = [];
      value.forEach((item, i) => {
        const out = spec.check(item, { ...at, path: `${at.path}[${i}]` });
        if (out !== DROPPED) kept.push(out);
      });
      return kept;
    },
  };
}

/** The first of `options` the value fits (each tried silently), else reported as `describe`. */
function oneOf<T extends unknown[]>(
  options: { readonly [K in keyof T]: Spec<T[K]> },
  describe: string,
): Spec<T[number]> {
  return {
    describe,
    check: (value, at) => {
      for (const option of options) {
        const out = option.check(value, { path: at.path, issues: [], quiet: true });
        if (out !== DROPPED) return out;
      }
      return reject(describe, typeName(value), at);
    },
  };
}

type Shape = Record<string, Spec<unknown>>;

/** An object of `S`'s fields: those in `R` present, the others optional; `P`: other keys kept. */
type FieldsOf<S extends Shape, R extends keyof S, P extends boolean> = {
  [K in keyof S as K extends R ? K : never]: Infer<S[K]>;
} & { [K in keyof S as K extends R ? never : K]?: Infer<S[K]> } & (P extends true
    ? { [key: string]: unknown }
    : unknown);

/**
 * Whether `out`, built by {@link fields} from `shape`'s checks, is a `FieldsOf` (each value it
 * holds under a field's key came from that field's `check`, so has its type): every required
 * field is there, and without `passthrough` no other key is.
 */
function assembled<S extends Shape, R extends keyof S, P extends boolean>(
  out: Record<string, unknown>,
  shape: S,
  required: ReadonlySet<string>,
  passthrough: boolean,
): out is Record<string, unknown> & FieldsOf<S, R, P> {
  for (const key of required) if (!(key in out)) return false;
  return passthrough || Object.keys(out).every((key) => key in shape);
}

/**
 * An object with `shape`'s fields: a wrong-typed field is dropped (and reported), a missing or
 * dropped `required` one drops the whole object; with `passthrough` its other keys are kept
 * unchecked, else left out.
 */
function fields<S extends Shape, R extends keyof S & string = never, P extends boolean = false>(
  shape: S,
  options: { required?: readonly R[]; passthrough?: P } = {},
): Spec<FieldsOf<S, R, P>> {
  const describe = 'an object';
  const required: ReadonlySet<string> = new Set(options.required);
  const passthrough = options.passthrough === true;
  return {
    describe,
    check: (value, at) => {
      if (!isPlainObject(value)) return reject(describe, typeName(value), at);
      const { path, issues, quiet } = at;
      const out: Record<string, unknown> = passthrough ? { ...value } : {};
      for (const [key, spec] of Object.entries(shape)) {
        const fieldPath = path ? `${path}.${key}` : key;
        if (!(key in value) || value[key] === undefined) {
          if (required.has(key)) {
            if (!quiet)
              issues.push({
                path: fieldPath,
                message: `${fieldPath} is missing; ${path} ignored.`,
              });
            return DROPPED;
          }
          delete out[key];
          continue;
        }
        const checked = spec.check(value[key], { path: fieldPath, issues, quiet });
        if (checked === DROPPED) {
          if (required.has(key)) return DROPPED;
          delete out[key];
        } else out[key] = checked;
      }
      return assembled<S, R, P>(out, shape, required, passthrough) ? out : DROPPED;
    },
  };
}

/**
 * An object's string values: ModelData types `config.auto_map` as strings, and the generators read
 * only strings there. The Hub also holds lists (`AutoTokenizer: [slow, fast]`): left out, quietly,
 * as nothing reads them.
 */
const stringValues: Spec<Record<string, string>> = {
  describe: 'an object',
  check: (value, at) => {
    if (!isPlainObject(value)) return reject('an object', typeName(value), at);
    const out: Record<string, string> = {};
    for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
    return out;
  },
};

/**
 * A widget example as ModelData types it (each of its shapes has a required key); the generators
 * read `text`, or `source_sentence` with `sentences`. An image's `src` example is kept too. Other
 * keys pass through unchecked.
 */
const widgetExample = oneOf(
  [
    fields({ text: str }, { required: ['text'], passthrough: true }),
    fields(
      { source_sentence: str, sentences: strList },
      { required: ['source_sentence', 'sentences'], passthrough: true },
    ),
    fields({ src: str }, { required: ['src'], passthrough: true }),
  ],
  'a widget example (an object with a string "text", "src", or "source_sentence" and "sentences")',
);

const chatTemplate = oneOf(
  // ModelData requires both keys of a named template: an item missing one is dropped (silently,
  // as everything tried inside oneOf).
  [str, arrayOf(fields({ name: str, template: str }, { required: ['name', 'template'] }))],
  'a string or a list of named templates',
);

/** The fields each generator of @huggingface/tasks may read, checked before they see them. */
const SCHEMA = fields({
  id: str,
  tags: strList,
  pipeline_tag: pipeline,
  library_name: str,
  inference: str,
  private: bool,
  mask_token: str,
  widgetData: arrayOf(widgetExample),
  cardData: fields({
    base_model: oneOf([str, strList], 'a string or a list of strings'),
    instance_prompt: nullable(str),
    inference: oneOf([bool, fields({}, { passthrough: true })], 'a boolean or an object'),
  }),
  config: fields({
    architectures: strList,
    model_type: str,
    auto_map: stringValues,
    quantization_config: fields({
      bits: num,
      load_in_4bit: bool,
      load_in_8bit: bool,
      quant_method: str,
    }),
    tokenizer_config: fields({ chat_template: chatTemplate }, { passthrough: true }),
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
  transformersInfo: fields(
    { auto_model: str, custom_class: str, pipeline_tag: pipeline, processor: str },
    { required: ['auto_model'] },
  ),
  siblings: arrayOf(fields({ rfilename: str }, { required: ['rfilename'] })),
  gguf: fields(
    { total: num, architecture: str, context_length: num, chat_template: str },
    { required: ['total'] },
  ),
});

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
  const trimmed = id.trim();
  const checked = SCHEMA.check({ ...data, id: trimmed }, { path: '', issues, quiet: false });
  // Never DROPPED: `data` is an object and the schema's top level requires no field.
  const record: ModelRecord = {
    inference: '',
    tags: [],
    id: trimmed,
    ...(checked === DROPPED ? {} : checked),
  };
  return { record, issues };
}

function formatChars(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : `${Math.ceil(n / 1000)} kB`;
}
