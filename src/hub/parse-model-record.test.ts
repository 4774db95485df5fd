import { describe, expect, expectTypeOf, it } from 'vitest';
import { MAX_RECORD_CHARS, parseModelRecord } from './parse-model-record';
import { HubError } from './hub-error';
import type { ModelRecord } from './types';

function thrown(fn: () => unknown): HubError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error('expected a HubError');
}

describe('parseModelRecord', () => {
  it('keeps the fields the generators read, fills tags and inference, leaves the rest out', () => {
    const { record, issues } = parseModelRecord({
      json: JSON.stringify({
        id: 'acme/m',
        pipeline_tag: 'text-generation',
        library_name: 'transformers',
        config: { peft: { task_type: 'CAUSAL_LM' }, unrelated: { x: 1 } },
        siblings: [{ rfilename: 'a.gguf' }],
        downloads: 10,
      }),
    });
    expect(issues).toEqual([]);
    expect(record).toEqual({
      id: 'acme/m',
      inference: '',
      tags: [],
      pipeline_tag: 'text-generation',
      library_name: 'transformers',
      config: { peft: { task_type: 'CAUSAL_LM' } },
      siblings: [{ rfilename: 'a.gguf' }],
    });
  });

  it('accepts an object already parsed, and `modelId` in place of `id`', () => {
    expect(parseModelRecord({ json: { modelId: 'acme/m', tags: ['x'] } }).record).toMatchObject({
      id: 'acme/m',
      tags: ['x'],
    });
  });

  it('drops wrong-typed fields and reports each, without throwing', () => {
    const { record, issues } = parseModelRecord({
      json: {
        id: 'acme/m',
        tags: 'peft',
        pipeline_tag: 'not-a-task',
        config: { peft: { task_type: 42 }, keras_hub: { tasks: [1, 2] } },
        cardData: { base_model: ['a/b'], instance_prompt: null },
        transformersInfo: { processor: 'AutoTokenizer' },
        siblings: [{ rfilename: 'ok.onnx' }, { size: 3 }, 'x'],
        widgetData: [{ text: 'hi', extra: 1 }, { text: 5 }],
      },
    });
    expect(issues.map((i) => i.message)).toEqual([
      'tags should be a list of strings, got a string; ignored.',
      'pipeline_tag should be a known task id, got "not-a-task"; ignored.',
      'widgetData[1] should be a widget example (an object with a string "text", "src", or "source_sentence" and "sentences"), got an object; ignored.',
      'config.peft.task_type should be a string, got a number; ignored.',
      'config.keras_hub.tasks should be a list of strings, got a list holding a number; ignored.',
      'transformersInfo.auto_model is missing; transformersInfo ignored.',
      'siblings[1].rfilename is missing; siblings[1] ignored.',
      'siblings[2] should be an object, got a string; ignored.',
    ]);
    expect(record.tags).toEqual([]);
    expect(record.pipeline_tag).toBeUndefined();
    expect(record.config).toEqual({ peft: {}, keras_hub: {} });
    expect(record.cardData).toEqual({ base_model: ['a/b'], instance_prompt: null });
    expect(record.transformersInfo).toBeUndefined();
    expect(record.siblings).toEqual([{ rfilename: 'ok.onnx' }]);
    // An example none of whose shapes fits is left out (ModelData's WidgetExample has a required key).
    expect(record.widgetData).toEqual([{ text: 'hi', extra: 1 }]);
  });

  it('invalid JSON: a typed error saying so', () => {
    const error = thrown(() => parseModelRecord({ json: '{"id": "a/b",' }));
    expect(error.kind).toBe('invalid-json');
    expect(error.message).toMatch(/^This is not valid JSON: /);
    expect(thrown(() => parseModelRecord({ json: '   ' })).message).toBe(
      'Paste a model record (JSON) first.',
    );
  });

  it('not an object, or no id: invalid-record', () => {
    expect(thrown(() => parseModelRecord({ json: '[1,2]' })).message).toBe(
      'A model record is a JSON object with an "id"; got a list.',
    );
    const noId = thrown(() => parseModelRecord({ json: '{"id": 7}' }));
    expect(noId.kind).toBe('invalid-record');
    expect(noId.message).toBe(
      'The record has no "id": a model record names its model, e.g. "owner/name".',
    );
  });

  it('a huge paste is refused before parsing', () => {
    const huge = `{"id":"a/b","tags":["${'x'.repeat(MAX_RECORD_CHARS)}"]}`;
    const error = thrown(() => parseModelRecord({ json: huge }));
    expect(error.kind).toBe('too-large');
    expect(error.message).toBe(
      'The record is 2.0 MB; the limit is 2.0 MB. Paste the record of a single model.',
    );
    expect(thrown(() => parseModelRecord({ json: '{"id":"a/b"}', maxChars: 5 })).message).toBe(
      'The record is 1 kB; the limit is 1 kB. Paste the record of a single model.',
    );
  });

  it('the record is typed ModelRecord; nested misfits are reported at their path', () => {
    const { record, issues } = parseModelRecord({
      json: {
        id: ' acme/m ',
        cardData: { instance_prompt: 3, inference: 'yes', base_model: 7 },
        config: {
          tokenizer_config: {
            chat_template: [{ name: 'default', template: 't' }, { name: 'tool_use' }],
            bos_token: '<s>',
          },
          quantization_config: { bits: '4' },
        },
        gguf: { architecture: 'llama' },
      },
    });
    expectTypeOf(record).toEqualTypeOf<ModelRecord>();
    expect(issues.map((i) => i.message)).toEqual([
      'cardData.base_model should be a string or a list of strings, got a number; ignored.',
      'cardData.instance_prompt should be a string, got a number; ignored.',
      'cardData.inference should be a boolean or an object, got a string; ignored.',
      'config.quantization_config.bits should be a number, got a string; ignored.',
      'gguf.total is missing; gguf ignored.',
    ]);
    expect(record.id).toBe('acme/m');
    expect(record.config).toEqual({
      tokenizer_config: {
        chat_template: [{ name: 'default', template: 't' }],
        bos_token: '<s>',
      },
      quantization_config: {},
    });
    expect(record.cardData).toEqual({});
    expect(record.gguf).toBeUndefined();
  });
});

describe('parseModelRecord: fields typed as ModelData declares them', () => {
  it('keeps auto_map string values only, and the widget examples the generators can read', () => {
    const { record, issues } = parseModelRecord({
      json: {
        id: 'acme/m',
        config: { auto_map: { AutoModel: 'm.Model', AutoTokenizer: ['slow', 'fast'] } },
        widgetData: [
          { source_sentence: 'a', sentences: ['b', 'c'] },
          { src: 'https://x/cat.png', example_title: 'Cat' },
          {},
        ],
      },
    });
    expect(record.config?.auto_map).toEqual({ AutoModel: 'm.Model' });
    expect(record.widgetData).toEqual([
      { source_sentence: 'a', sentences: ['b', 'c'] },
      { src: 'https://x/cat.png', example_title: 'Cat' },
    ]);
    expect(issues.map((i) => i.path)).toEqual(['widgetData[2]']);
  });
});
