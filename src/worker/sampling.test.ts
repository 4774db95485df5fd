import { describe, expect, it } from 'vitest';
import { samplingArgs } from './sampling';
import { DEFAULT_MAX_NEW_TOKENS } from '../shared/generation-settings';

describe('samplingArgs: a request’s options as generate() arguments', () => {
  it('temperature 0 or none is greedy (top p ignored); penalty 1 and the default limit when unset', () => {
    expect(samplingArgs(undefined)).toEqual({
      do_sample: false,
      repetition_penalty: 1,
      max_new_tokens: DEFAULT_MAX_NEW_TOKENS,
    });
    expect(samplingArgs({ maxNewTokens: 64, temperature: 0, topP: 0.5 })).toEqual({
      do_sample: false,
      repetition_penalty: 1,
      max_new_tokens: 64,
    });
  });

  it('a temperature above 0 samples with top p (1 when unset) and the penalty given', () => {
    expect(
      samplingArgs({ maxNewTokens: 8, temperature: 0.6, topP: 0.95, repetitionPenalty: 1.1 }),
    ).toEqual({
      do_sample: true,
      temperature: 0.6,
      top_p: 0.95,
      repetition_penalty: 1.1,
      max_new_tokens: 8,
    });
    expect(samplingArgs({ maxNewTokens: 8, temperature: 1 })).toMatchObject({ top_p: 1 });
  });
});
