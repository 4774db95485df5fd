import { PIPELINE_TYPES_SET } from '@huggingface/tasks';
import { HubError } from './hub-error';
import type { ModelRecord, ParsedModelRecord, RecordIssue } from './types';
import { errorMessage } from '../shared/errors';

/** The Hub's pipeline names, read as strings (a `Set<PipelineType>` is a set of strings). */
const PIPELINES: ReadonlySet<string> = PIPELINE_TYPES_SET;

/**
 * Largest record accepted, in characters of JSON. Real `/api/models/{id}` answers are a few KB to a
 * few hundred KB (repos with thousands of files); past this a paste is a mistake, and parsing it
 * would freeze the page.
 */
export const MAX_RECORD_CHARS = 2_000_000;

/** Field kinds of the schema below: what each generator of @huggingface/tasks may read. */
type Spec =
  | 'string'
  | 'number'
  | 'boolean'
  | 'string[]'
  | 'pipeline'
  | { oneOf: Spec[]; describe: string }
  | { nullable: Spec }
  | { arrayOf: Spec }
  | { fields: Record<string, Spec>; required?: string[]; passthrough?: boolean };

const chatTemplate: Spec = {
  oneOf: ['string', { arrayOf: { fields: { name: 'string', template: 'string' } } }],
  describe: 'a string or a list of named templates',
};

const SCHEMA: { fields: Record<string, Spec> } = {
  fields: {
    id: 'string',
    tags: 'string[]',
    pipeline_tag: 'pipeline',
    library_name: 'string',
    inference: 'string',
    private: 'boolean',
    mask_token: 'string',
    widgetData: { arrayOf: { fields: { text: 'string' }, passthrough: true } },
    cardData: {
      fields: {
        base_model: { oneOf: ['string', 'string[]'], describe: 'a string or a list of strings' },
        instance_prompt: { nullable: 'string' },
        inference: {
          oneOf: ['boolean', { fields: {}, passthrough: true }],
          describe: 'a boolean or an object',
        },
      },
    },
    config: {
      fields: {
        architectures: 'string[]',
        model_type: 'string',
        auto_map: { fields: {}, passthrough: true },
        quantization_config: {
          fields: {
            bits: 'number',
            load_in_4bit: 'boolean',
            load_in_8bit: 'boolean',
            quant_method: 'string',
          },
        },
        tokenizer_config: { fields: { chat_template: chatTemplate }, passthrough: true },
        processor_config: { fields: { chat_template: 'string' } },
        chat_template_jinja: 'string',
        adapter_transformers: { fields: { model_name: 'string', model_class: 'string' } },
        diffusers: { fields: { _class_name: 'string' } },
        sklearn: { fields: { model: { fields: { file: 'string' } }, model_format: 'string' } },
        speechbrain: {
          fields: {
            speechbrain_interface: 'string',
            vocoder_interface: 'string',
            vocoder_model_id: 'string',
          },
        },
        peft: { fields: { base_model_name_or_path: 'string', task_type: 'string' } },
        keras_hub: { fields: { tasks: 'string[]' } },
      },
    },
    transformersInfo: {
      fields: {
        auto_model: 'string',
        custom_class: 'string',
        pipeline_tag: 'pipeline',
        processor: 'string',
      },
      required: ['auto_model'],
    },
    siblings: { arrayOf: { fields: { rfilename: 'string' }, required: ['rfilename'] } },
    gguf: {
      fields: {
        total: 'number',
        architecture: 'string',
        context_length: 'number',
        chat_template: 'string',
      },
      required: ['total'],
    },
  },
};

const DROPPED = Symbol('dropped');
type Out = unknown;

function describe(spec: Spec): string {
  if (spec === 'string[]') return 'a list of strings';
  if (spec === 'pipeline') return 'a known task id';
  if (typeof spec === 'string') return spec === 'number' ? 'a number' : `a ${spec}`;
  if ('oneOf' in spec) return spec.describe;
  if ('nullable' in spec) return `${describe(spec.nullable)} or null`;
  if ('arrayOf' in spec) return 'a list';
  return 'an object';
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

/** Validates `value` against `spec`; returns DROPPED (and records why) when it does not fit. */
function check(
  value: unknown,
  spec: Spec,
  path: string,
  issues: RecordIssue[],
  quiet = false,
): Out {
  const fail = (): typeof DROPPED => {
    if (!quiet) {
      const odd: unknown = Array.isArray(value)
        ? value.find((v: unknown) => typeof v !== 'string')
        : undefined;
      const shown =
        spec === 'pipeline' && typeof value === 'string'
          ? `"${value}"`
          : spec === 'string[]' && Array.isArray(value)
            ? `a list holding ${typeName(odd)}`
            : typeName(value);
      issues.push({
        path,
        message: `${path} should be ${describe(spec)}, got ${shown}; ignored.`,
      });
    }
    return DROPPED;
  };
  if (typeof spec === 'string') {
    switch (spec) {
      case 'string':
      case 'number':
      case 'boolean':
        return typeof value === spec ? value : fail();
      case 'string[]':
        return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : fail();
      case 'pipeline':
        return typeof value === 'string' && PIPELINES.has(value) ? value : fail();
    }
  }
  if ('oneOf' in spec) {
    for (const option of spec.oneOf) {
      const out = check(value, option, path, [], true);
      if (out !== DROPPED) return out;
    }
    return fail();
  }
  if ('nullable' in spec) return value === null ? null : check(value, spec.nullable, path, issues);
  if ('arrayOf' in spec) {
    if (!Array.isArray(value)) return fail();
    const kept: unknown[] = [];
    value.forEach((item, i) => {
      const out = check(item, spec.arrayOf, `${path}[${i}]`, issues, quiet);
      if (out !== DROPPED) kept.push(out);
    });
    return kept;
  }
  if (!isPlainObject(value)) return fail();
  const out: Record<string, unknown> = spec.passthrough ? { ...value } : {};
  for (const [key, fieldSpec] of Object.entries(spec.fields)) {
    const fieldPath = path ? `${path}.${key}` : key;
    if (!(key in value) || value[key] === undefined) {
      if (spec.required?.includes(key)) {
        if (!quiet)
          issues.push({ path: fieldPath, message: `${fieldPath} is missing; ${path} ignored.` });
        return DROPPED;
      }
      delete out[key];
      continue;
    }
    const checked = check(value[key], fieldSpec, fieldPath, issues, quiet);
    if (checked === DROPPED) {
      if (spec.required?.includes(key)) return DROPPED;
      delete out[key];
    } else out[key] = checked;
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
  // `check` has just validated every field against SCHEMA, which mirrors ModelRecord; the
  // compiler cannot see that, so these two assertions stay (a typed validator would remove them).
  // eslint-disable-next-line no-restricted-syntax
  const checked = check({ ...data, id: id.trim() }, SCHEMA, '', issues) as Record<string, unknown>;
  // eslint-disable-next-line no-restricted-syntax
  const record = { inference: '', tags: [], ...checked } as unknown as ModelRecord;
  return { record, issues };
}

function formatChars(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : `${Math.ceil(n / 1000)} kB`;
}
