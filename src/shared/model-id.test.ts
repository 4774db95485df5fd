import { describe, expect, it } from 'vitest';
import { isModelId, modelIdProblem } from './model-id';

describe('isModelId (the Hub rule)', () => {
  it('accepts real ids', () => {
    for (const id of [
      'onnx-community/gemma-2-2b-jpn-it',
      'openai/gpt-oss-20b',
      'meta-llama/Llama-3.2-1B-Instruct',
      'google_org/model_v1.0',
      'gpt2',
      `${'a'.repeat(96)}/${'b'.repeat(96)}`,
    ])
      expect(isModelId(id), id).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['a/b/c', 'more than one'],
    ['../etc', '"--" or ".."'],
    ['owner/..', '"--" or ".."'],
    ['owner/a--b', '"--" or ".."'],
    ['owner/a..b', '"--" or ".."'],
    ['-owner/name', 'not a model id'],
    ['owner/name-', 'not a model id'],
    ['owner/.name', 'not a model id'],
    ['owner/name.', 'not a model id'],
    ['owner/na me', 'not a model id'],
    ['owner/name?x=1', 'not a model id'],
    ['owner/na%2Fme', 'not a model id'],
    ['/name', 'not a model id'],
    ['owner/', 'not a model id'],
    [`owner/${'a'.repeat(97)}`, 'not a model id'],
    [`${'a'.repeat(97)}/name`, 'not a model id'],
  ])('refuses %j (%s)', (id, words) => {
    expect(isModelId(id)).toBe(false);
    expect(modelIdProblem(id)).toContain(words);
  });

  it('needs an owner where asked', () => {
    expect(isModelId('gpt2', { requireOwner: true })).toBe(false);
    expect(modelIdProblem('gpt2', { requireOwner: true })).toContain('has no owner');
  });
});
