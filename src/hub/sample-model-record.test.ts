import { describe, expect, it } from 'vitest';
import { sampleModelRecord } from './sample-model-record';
import { parseModelRecord } from './parse-model-record';

describe('sampleModelRecord', () => {
  it('a valid transformers.js text-generation record with the dtype file', () => {
    const record = sampleModelRecord({ modelId: 'onnx-community/x', dtype: 'q4' });
    expect(parseModelRecord({ json: JSON.stringify(record) })).toEqual({ record, issues: [] });
    expect(record.siblings).toContainEqual({ rfilename: 'onnx/model_q4.onnx' });
  });
});
