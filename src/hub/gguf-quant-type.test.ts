import { describe, expect, it } from 'vitest';
import { ggufQuantType } from './gguf-quant-type';

describe('ggufQuantType', () => {
  it.each([
    ['Llama-3.2-1B-Instruct-Q4_K_M.gguf', 'Q4_K_M', 15],
    ['model-q8_0.gguf', 'Q8_0', 7],
    ['phi-3-f16.gguf', 'F16', 1],
    ['gemma-BF16.gguf', 'BF16', 32],
    ['Qwen3-UD-Q4_K_XL.gguf', 'UD-Q4_K_XL', 1002],
    ['gpt-oss-20b-MXFP4.gguf', 'MXFP4', 38],
    ['sub/dir/model-IQ2_XXS.gguf', 'IQ2_XXS', 19],
  ])('%s → %s (file type %d)', (fileName, label, code) => {
    expect(ggufQuantType({ fileName })).toMatchObject({ label, fileType: { code } });
  });

  it('undefined when the name holds no quantization', () => {
    expect(ggufQuantType({ fileName: 'model.gguf' })).toBeUndefined();
  });
});
