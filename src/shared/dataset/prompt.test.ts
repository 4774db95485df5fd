import { describe, expect, it } from 'vitest';
import { buildDatasetPrompt } from './prompt';
import { SAMPLE_NAME, SAMPLE_TEXT } from './sample';
import { countSentences } from './sentences';

describe('buildDatasetPrompt', () => {
  const prompt = buildDatasetPrompt({ name: SAMPLE_NAME, text: SAMPLE_TEXT, count: 7 });

  it('holds the instructions, the name, the count and the whole text', () => {
    expect(prompt).toContain(`titled "${SAMPLE_NAME}"`);
    expect(prompt).toContain('Write exactly 7 question/answer pairs');
    expect(prompt).toContain(`must mention "${SAMPLE_NAME}"`);
    expect(prompt).toContain('2-3 sentences');
    expect(prompt).toContain(SAMPLE_TEXT);
  });

  it('asks for JSON only, in the schema form', () => {
    expect(prompt).toContain('Reply with JSON only');
    expect(prompt).toContain('{"entries": [{"prompt": "...", "completion": "..."}]}');
  });

  it('names the part of a split text; singular for one pair', () => {
    const part = buildDatasetPrompt({ name: 'N', text: 't', count: 1, part: { index: 1, of: 3 } });
    expect(part).toContain('Write exactly 1 question/answer pair about');
    expect(part).toContain('(part 2 of 3)');
    expect(
      buildDatasetPrompt({ name: 'N', text: 't', count: 2, part: { index: 0, of: 1 } }),
    ).not.toContain('part 1');
  });

  it('falls back to "the text" without a name', () => {
    expect(buildDatasetPrompt({ name: ' ', text: 't', count: 2 })).toContain('titled "the text"');
  });
});

describe('sample text', () => {
  it('is short, several paragraphs, named', () => {
    expect(SAMPLE_NAME.length).toBeGreaterThan(3);
    expect(SAMPLE_TEXT.split('\n\n')).toHaveLength(3);
    expect(countSentences(SAMPLE_TEXT)).toBeGreaterThan(5);
    expect(SAMPLE_TEXT.length).toBeLessThan(1500);
  });
});
