import type { ModelRecord } from './types';

/**
 * A built-in record for one of the in-browser models (src/shared/models.ts): what the Hub says of
 * them in the fields the snippets read, so the examples work offline. Fetching the id from the
 * Hub gives the full record.
 */
export function sampleModelRecord(params: { modelId: string; dtype?: string }): ModelRecord {
  const { modelId, dtype = 'q4f16' } = params;
  return {
    id: modelId,
    inference: '',
    library_name: 'transformers.js',
    pipeline_tag: 'text-generation',
    tags: ['transformers.js', 'onnx', 'text-generation', 'conversational'],
    siblings: [
      { rfilename: 'config.json' },
      { rfilename: 'generation_config.json' },
      { rfilename: 'tokenizer.json' },
      { rfilename: 'tokenizer_config.json' },
      { rfilename: `onnx/model_${dtype}.onnx` },
    ],
  };
}
