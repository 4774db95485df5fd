import { describe, expect, it } from 'vitest';
import { isBrowserChatModel } from './is-browser-chat-model';
import { sampleModelRecord } from './sample-model-record';
import { MODELS } from '../shared/models';
import type { ModelRecord } from './types';

const base: ModelRecord = { id: 'a/b', inference: '', tags: [], pipeline_tag: 'text-generation' };

describe('isBrowserChatModel', () => {
  it('every in-browser model qualifies', () => {
    for (const m of MODELS) {
      expect(isBrowserChatModel({ record: sampleModelRecord({ modelId: m.id }) })).toEqual({
        ok: true,
      });
    }
  });

  it('transformers.js by tag, ONNX by file', () => {
    const record = {
      ...base,
      tags: ['transformers.js'],
      siblings: [{ rfilename: 'onnx/model.onnx' }],
    };
    expect(isBrowserChatModel({ record }).ok).toBe(true);
  });

  it.each<[string, ModelRecord, string]>([
    [
      'not text-generation',
      { ...base, pipeline_tag: 'fill-mask', library_name: 'transformers.js', tags: ['onnx'] },
      'Only text-generation models can be loaded in the chat.',
    ],
    [
      'not transformers.js',
      { ...base, library_name: 'transformers', tags: ['onnx'] },
      'The model is not marked as compatible with transformers.js.',
    ],
    [
      'no ONNX weights',
      { ...base, library_name: 'transformers.js', siblings: [{ rfilename: 'model.safetensors' }] },
      'The model has no ONNX weights.',
    ],
  ])('%s', (_name, record, reason) => {
    expect(isBrowserChatModel({ record })).toEqual({ ok: false, reason });
  });
});
