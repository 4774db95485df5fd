import { describe, expect, it } from 'vitest';
import { MODELS, trainedModelOption } from './models';
import type { TrainedModel } from './training-api';

const trained = (variants: TrainedModel['variants']): TrainedModel => ({
  id: 'trained/harbour-run',
  name: 'harbour-run',
  run_id: 'r1',
  base_model: 'meta-llama/Llama-3.2-1B-Instruct',
  output_dir: '/srv/out/harbour-run',
  variants,
  bytes: 1000,
  created_at: '2026-01-01T00:00:00.000Z',
});

describe('trainedModelOption', () => {
  it('named after its output folder, served by the training service', () => {
    const option = trainedModelOption(trained(['fp32']), 'http://127.0.0.1:8000/');
    expect(option).toMatchObject({
      value: 'trained/harbour-run',
      id: 'trained/harbour-run',
      label: 'harbour-run (fine-tuned)',
      host: 'http://127.0.0.1:8000/',
      dtype: 'fp32',
    });
    expect(option.fallback).toBeUndefined();
  });

  it('q4f16 when the files have it (q4, else fp32, for a GPU without shader-f16)', () => {
    expect(trainedModelOption(trained(['fp32', 'q4', 'q4f16']), 'http://h')).toMatchObject({
      dtype: 'q4f16',
      fallback: { id: 'trained/harbour-run', dtype: 'q4' },
    });
    expect(trainedModelOption(trained(['q4f16', 'fp32']), 'http://h').fallback?.dtype).toBe('fp32');
    expect(trainedModelOption(trained(['fp32', 'q4']), 'http://h').dtype).toBe('q4');
    // Only q4f16: no fallback, so a GPU without shader-f16 gets resolveVariant's clear error.
    expect(trainedModelOption(trained(['q4f16']), 'http://h').fallback).toBeUndefined();
  });
});

describe('MODELS', () => {
  it('each names the Hub model it can be fine-tuned from', () => {
    for (const m of MODELS) expect(m.source).toMatch(/^[\w.-]+\/[\w.-]+$/);
  });
});
