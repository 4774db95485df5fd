/**
 * The training table drives the request schema, the trainer's flags, the mock and the trainer's
 * own command line: for every field of the table, each of them must know it. A field added to
 * training-fields.json fails here until it is everywhere (the form's part is in
 * src/ui/training/AdvancedOptions.test.tsx).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { createTrainingMock } from '../../mocks/training-handlers';
import {
  DEFAULT_EVAL_FRACTION,
  DEFAULT_TRAINING_URL,
  PlanResponseSchema,
  TRAINING_PARAMS,
  TrainRequestSchema,
  formatIssues,
} from './training-api';
import {
  TRAINING_FIELDS,
  allowedText,
  defaultFor,
  fieldError,
  optionSummary,
  trainerArgs,
  trainingOptionShape,
  type TrainingField,
} from './training-fields';

const ROOT = resolve(import.meta.dirname, '../..');
const PATHS = {
  script_path: 'training/finetune.py',
  output_dir: 'service-data/outputs/x',
  data_file: 'service-data/datasets/x.json',
  base_model: 'tiny',
};
const valid = { ...PATHS, ...TRAINING_PARAMS };

/** A value of the field other than its defaults (so a flag and a summary must show it). */
function otherValue(field: TrainingField): number | string | boolean {
  const defaults = [defaultFor(field, 'lora'), defaultFor(field, 'full')];
  if (field.type === 'bool') return true;
  if (field.type === 'enum') return (field.values ?? []).find((v) => !defaults.includes(v)) ?? '';
  if (field.type === 'string') return 'v1.0';
  if (field.type === 'template')
    return '{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}';
  const max = field.max ?? 1;
  return defaults.includes(max) ? (field.min ?? 0) : max;
}

function bodyError(body: Record<string, unknown>): string | null {
  const result = z.safeParse(TrainRequestSchema, body);
  return result.success ? null : formatIssues(result.error.issues);
}

describe('training-fields.json', () => {
  it('TypeScript knows every field of the table, and no other', () => {
    expect(TRAINING_FIELDS.map((f) => f.name)).toEqual(Object.keys(trainingOptionShape()));
  });

  it("PRODUCT.md's four values and the held-out share are the table's defaults", () => {
    expect(TRAINING_PARAMS).toEqual({ max_len: 256, repeat: 30, max_steps: 120, lr: 2e-4 });
    expect(DEFAULT_EVAL_FRACTION).toBe(0.1);
    expect(defaultFor('lr', 'full')).toBe(2e-5);
  });

  it('flags are unique', () => {
    const flags = TRAINING_FIELDS.map((f) => f.flag);
    expect(new Set(flags).size).toBe(flags.length);
  });
});

describe.each(TRAINING_FIELDS.map((f) => [f.name, f] as const))('field %s', (name, field) => {
  it('the schema accepts its bounds and refuses past them, naming the range', () => {
    if (field.type === 'bool') {
      expect(bodyError({ ...valid, [name]: true })).toBeNull();
      expect(bodyError({ ...valid, [name]: 'yes' })).toBe(`${name} must be true or false`);
      return;
    }
    if (field.type === 'enum') {
      for (const value of field.values ?? [])
        expect(bodyError({ ...valid, [name]: value })).toBeNull();
      expect(bodyError({ ...valid, [name]: 'other' })).toMatch(
        new RegExp(`^${name} must be (one of )?"`),
      );
      return;
    }
    if (field.type === 'string') {
      const longest = field.max_length ?? 200;
      expect(bodyError({ ...valid, [name]: 'a'.repeat(longest) })).toBeNull();
      expect(bodyError({ ...valid, [name]: 'refs/pr/1' })).toBeNull();
      expect(bodyError({ ...valid, [name]: 'a'.repeat(longest + 1) })).toBe(
        `${name} must be at most ${longest} characters`,
      );
      for (const bad of ['my tag', 'v1\n', 'v\u00e9'])
        expect(bodyError({ ...valid, [name]: bad })).toBe(
          `${name} must be printable characters without spaces`,
        );
      expect(bodyError({ ...valid, [name]: 5 })).toBe(`${name} must be text`);
      expect(allowedText(field)).toBe(`printable characters without spaces, at most ${longest}`);
      return;
    }
    if (field.type === 'template') {
      const longest = field.max_length ?? 200;
      // Any text, whitespace and all, up to its length; NUL cannot travel as an argument.
      for (const ok of ['  {{ messages[0].content }}\n', 'é\t€', 'a'.repeat(longest)])
        expect(bodyError({ ...valid, [name]: ok })).toBeNull();
      expect(bodyError({ ...valid, [name]: 'a'.repeat(longest + 1) })).toBe(
        `${name} must be at most ${longest.toLocaleString('en-US')} characters`,
      );
      expect(bodyError({ ...valid, [name]: 'a\0b' })).toBe(
        `${name} must not contain NUL characters`,
      );
      expect(bodyError({ ...valid, [name]: 5 })).toBe(`${name} must be text`);
      expect(allowedText(field)).toBe(
        `a Jinja template of at most ${longest.toLocaleString('en-US')} characters`,
      );
      return;
    }
    const { min, max } = field;
    if (min === undefined || max === undefined) throw new Error(`${name} needs min and max`);
    expect(bodyError({ ...valid, [name]: min })).toBeNull();
    expect(bodyError({ ...valid, [name]: max })).toBeNull();
    expect(bodyError({ ...valid, [name]: max * 2 + 1 })).toMatch(
      new RegExp(`^${name} must be at most `),
    );
    expect(bodyError({ ...valid, [name]: min - 1 })).toMatch(
      new RegExp(`^${name} must be (at least|greater than) `),
    );
    expect(bodyError({ ...valid, [name]: 'x' })).toMatch(
      new RegExp(`^${name} must be (an integer|a number)$`),
    );
    if (field.type === 'int')
      expect(bodyError({ ...valid, [name]: min + 0.5 })).toBe(`${name} must be an integer`);
    expect(allowedText(field)).toMatch(/–/);
  });

  it(field.required ? 'is required' : 'may be left out', () => {
    const { [name]: _left, ...rest } = { ...valid } as Record<string, unknown>;
    expect(bodyError(rest)).toBe(field.required ? `${name} is required` : null);
  });

  it('its flag reaches the command line when sent', () => {
    const value = otherValue(field);
    const args = trainerArgs({ ...TRAINING_PARAMS, [name]: value });
    const at = args.indexOf(field.flag);
    expect(at).toBeGreaterThanOrEqual(0);
    if (field.type !== 'bool') expect(args[at + 1]).toBe(String(value));
    if (!field.required) expect(trainerArgs({ ...TRAINING_PARAMS })).not.toContain(field.flag);
  });

  it('the Runs list names it (by its label) when it is not the default', () => {
    if (field.group === 'method' || field.group === 'auto') return;
    expect(optionSummary({ [name]: otherValue(field) })).toContain(field.label);
    const fallback = defaultFor(field, 'lora');
    if (fallback !== null) expect(optionSummary({ [name]: fallback })).toBe('');
  });
});

describe('the mock service', () => {
  const mock = createTrainingMock();
  const server = setupServer(...mock.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('accepts every field of the table in one request, and keeps them', async () => {
    const body: Record<string, unknown> = { ...valid };
    for (const field of TRAINING_FIELDS) body[field.name] = otherValue(field);
    const reply = await fetch(`${DEFAULT_TRAINING_URL}/train`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(reply.status).toBe(200);
    expect(mock.starts.at(-1)).toEqual(body);
  });

  it('plans from the dataset it holds (POST /train/plan): epochs turn into steps', async () => {
    const ask = (patch: Record<string, unknown>) =>
      fetch(`${DEFAULT_TRAINING_URL}/train/plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...valid, ...patch }),
      });
    const plan = PlanResponseSchema.parse(await (await ask({ epochs: 2, batch_size: 3 })).json());
    expect(plan.plan).toMatchObject({ entries: 10, held_out: 1, train: 9, effective_batch: 3 });
    expect(plan.plan.steps).toBe(6);
    const tooLong = await ask({ max_len: 1 });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toEqual({
      error: '10 of 10 entries are longer than 1 tokens and were left out: raise Max length',
    });
  });
});

describe('form checks', () => {
  it('an out-of-range value gets the message naming the bound', () => {
    expect(fieldError({ ...fieldOf('eval_fraction') }, 0.9)).toBe('must be at most 0.5');
    expect(fieldError(fieldOf('epochs'), 0)).toBe('must be greater than 0');
    expect(fieldError(fieldOf('grad_accum'), 0)).toBe('must be greater than 0');
    expect(fieldError(fieldOf('lr'), 0)).toBe('must be greater than 0');
    expect(fieldError(fieldOf('lr'), 1e-9)).toBe('must be at least 1e-8');
    expect(fieldError(fieldOf('seed'), 7)).toBeNull();
  });
});

function fieldOf(name: string): TrainingField {
  const field = TRAINING_FIELDS.find((f) => f.name === name);
  if (!field) throw new Error(name);
  return field;
}

const python = resolve(ROOT, '.venv/bin/python');
describe.skipIf(!existsSync(python))("training/finetune.py's command line", () => {
  it('lists the flag of every field of the table', () => {
    const help = spawnSync(python, [resolve(ROOT, 'training/finetune.py'), '--help'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(help.status, help.stderr).toBe(0);
    const missing = TRAINING_FIELDS.filter((f) => !help.stdout.includes(f.flag)).map((f) => f.flag);
    expect(missing).toEqual([]);
  });
});
