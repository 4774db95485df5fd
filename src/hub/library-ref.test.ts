import { describe, expect, it } from 'vitest';
import { libraryRef } from './library-ref';

describe('libraryRef', () => {
  it('label, repository and docs of a known library; the key for an unknown one', () => {
    expect(libraryRef('PaddleOCR')).toEqual({
      key: 'PaddleOCR',
      prettyLabel: 'PaddleOCR',
      repoUrl: 'https://github.com/PaddlePaddle/PaddleOCR',
      docsUrl: 'https://www.paddleocr.ai/',
    });
    expect(libraryRef('peft')).toEqual({
      key: 'peft',
      prettyLabel: 'PEFT',
      repoUrl: 'https://github.com/huggingface/peft',
    });
    expect(libraryRef('nope')).toEqual({ key: 'nope', prettyLabel: 'nope', repoUrl: '' });
  });
});
