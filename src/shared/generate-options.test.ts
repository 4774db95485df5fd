import { describe, expect, it } from 'vitest';
import { toGenerateOptions } from './generate-options';
import { defaultSettings } from './generation-settings';

describe('toGenerateOptions: settings → the worker’s options (chat and Compare)', () => {
  it('carries every knob; an empty system prompt is none', () => {
    const settings = {
      ...defaultSettings(),
      temperature: 0.7,
      topP: 0.9,
      repetitionPenalty: 1.2,
      maxNewTokens: 300,
    };
    expect(toGenerateOptions({ ...settings, systemPrompt: '' })).toEqual({
      maxNewTokens: 300,
      temperature: 0.7,
      topP: 0.9,
      repetitionPenalty: 1.2,
      systemPrompt: undefined,
    });
    expect(toGenerateOptions({ ...settings, systemPrompt: 'Be brief.' }).systemPrompt).toBe(
      'Be brief.',
    );
  });

  it('Max new tokens stays within the cap; without a cap it is the setting', () => {
    const settings = { ...defaultSettings(), maxNewTokens: 4096 };
    expect(toGenerateOptions(settings, 2048).maxNewTokens).toBe(2048);
    expect(toGenerateOptions(settings).maxNewTokens).toBe(4096);
  });
});
