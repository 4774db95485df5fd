import { describe, expect, it } from 'vitest';
import { NO_F16_MESSAGE, describeLoadError, fallbackReason, resolveVariant } from './load-plan';

const base = { id: 'a/b', dtype: 'q4f16', shaderF16: true };

describe('resolveVariant', () => {
  it('keeps q4f16 when the adapter has shader-f16', () => {
    expect(resolveVariant(base)).toEqual({ id: 'a/b', dtype: 'q4f16' });
  });
  it('uses the fallback without shader-f16', () => {
    expect(
      resolveVariant({ ...base, shaderF16: false, fallback: { id: 'a/c', dtype: 'q4' } }),
    ).toEqual({
      id: 'a/c',
      dtype: 'q4',
    });
  });
  it('fails with a clear message without shader-f16 and without a fallback', () => {
    expect(resolveVariant({ ...base, shaderF16: false })).toEqual({ error: NO_F16_MESSAGE });
  });
  it('fp32 models need no f16', () => {
    expect(resolveVariant({ id: 'x/y', dtype: 'fp32', shaderF16: false })).toEqual({
      id: 'x/y',
      dtype: 'fp32',
    });
  });
});

describe('describeLoadError', () => {
  it.each([
    [new Error('Could not locate file: "x/onnx/model.onnx".'), /could not be downloaded/],
    [new Error('failed to allocate a buffer of size 3GB: out of memory'), /^Out of memory/],
    [new Error("Can't create a session. ERROR_CODE: 7, protobuf parsing failed."), /corrupt/],
    [new TypeError('Failed to fetch'), /Network error/],
    ['plain string', /^plain string$/],
  ])('%s', (error, expected) => {
    expect(describeLoadError(error)).toMatch(expected);
  });
});

// Regression: a trained model whose training service stopped mid-load said "are you offline?".
describe('a network error from a model host other than the Hub', () => {
  it('names the host instead of asking whether the browser is offline', () => {
    const message = describeLoadError(new TypeError('Failed to fetch'), 'http://127.0.0.1:8000/');
    expect(message).toBe(
      'Network error while downloading the model from http://127.0.0.1:8000/ (is that server still running?): Failed to fetch',
    );
    expect(describeLoadError(new Error(`Could not load the tokenizer of a/b: ${message}`))).toBe(
      `Could not load the tokenizer of a/b: ${message}`,
    );
    expect(describeLoadError(new TypeError('Failed to fetch'), 'https://huggingface.co/')).toBe(
      'Network error while downloading the model (are you offline?): Failed to fetch',
    );
  });
});

describe('describing twice', () => {
  // Regression: the worker re-described the tokenizer's already described error, so the message
  // said "are you offline?" twice.
  it('says "are you offline?" once when a described message is described again', () => {
    const inner = describeLoadError(new TypeError('Failed to fetch'));
    const wrapped = new Error(`Could not load the tokenizer of a/b: ${inner}`);
    const message = describeLoadError(wrapped);
    expect(message.match(/are you offline\?/g)).toHaveLength(1);
    expect(message).toBe(
      'Could not load the tokenizer of a/b: Network error while downloading the model (are you offline?): Failed to fetch',
    );
    expect(describeLoadError(inner)).toBe(inner);
  });
});

describe('fallbackReason', () => {
  it('names the variant tried and why', () => {
    const spec = { ...base, shaderF16: false, fallback: { id: 'a/c', dtype: 'q4' } };
    expect(fallbackReason(spec, resolveVariant(spec) as { id: string; dtype: string })).toBe(
      'No shader-f16 on this GPU, so the q4 variant (a/c) was tried',
    );
  });
  it('is null when the chosen variant loads', () => {
    expect(fallbackReason(base, { id: 'a/b', dtype: 'q4f16' })).toBeNull();
  });
});
