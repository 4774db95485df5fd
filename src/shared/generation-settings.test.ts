import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_NEW_TOKENS,
  checkSetting,
  checkSystemPrompt,
  defaultSettings,
  sanitizeSettings,
} from './generation-settings';

describe('generation settings', () => {
  it('defaults keep today’s behaviour: greedy, 1,024 tokens, capped by ?maxTokens=', () => {
    expect(defaultSettings()).toEqual({
      systemPrompt: '',
      temperature: 0,
      topP: 1,
      maxNewTokens: DEFAULT_MAX_NEW_TOKENS,
      repetitionPenalty: 1,
    });
    expect(DEFAULT_MAX_NEW_TOKENS).toBe(1024);
    expect(defaultSettings(48).maxNewTokens).toBe(48);
  });

  it('accepts in-range values', () => {
    expect(checkSetting('temperature', '0', 1024)).toEqual({ ok: true, value: 0 });
    expect(checkSetting('temperature', '2', 1024)).toEqual({ ok: true, value: 2 });
    expect(checkSetting('maxNewTokens', '48', 48)).toEqual({ ok: true, value: 48 });
    expect(checkSetting('topP', ' 0.9 ', 48)).toEqual({ ok: true, value: 0.9 });
  });

  it.each([
    ['temperature', '2.5', 'Temperature must be a number from 0 to 2.'],
    ['temperature', '-1', 'Temperature must be a number from 0 to 2.'],
    ['temperature', 'hot', 'Temperature must be a number from 0 to 2.'],
    ['temperature', '', 'Temperature must be a number from 0 to 2.'],
    ['topP', '0', 'Top p must be a number from 0.05 to 1.'],
    ['maxNewTokens', '0', 'Max new tokens must be a whole number from 1 to 48.'],
    ['maxNewTokens', '49', 'Max new tokens must be a whole number from 1 to 48.'],
    ['maxNewTokens', '2.5', 'Max new tokens must be a whole number from 1 to 48.'],
    ['repetitionPenalty', '3', 'Repetition penalty must be a number from 1 to 2.'],
  ] as const)('refuses %s = %j with the allowed range', (field, raw, error) => {
    expect(checkSetting(field, raw, 48)).toEqual({ ok: false, error });
  });

  it('refuses an over-long system prompt', () => {
    expect(checkSystemPrompt('x'.repeat(8001))).toMatch(/at most 8,000 characters/);
    expect(checkSystemPrompt('Be brief.')).toBeNull();
  });

  it('sanitizes untrusted settings field by field', () => {
    expect(
      sanitizeSettings(
        { temperature: 9, topP: 0.5, maxNewTokens: 5000, systemPrompt: 7, repetitionPenalty: 1.1 },
        1024,
      ),
    ).toEqual({
      systemPrompt: '',
      temperature: 0,
      topP: 0.5,
      maxNewTokens: 1024,
      repetitionPenalty: 1.1,
    });
    expect(sanitizeSettings(null, 100)).toEqual(defaultSettings(100));
  });
});
