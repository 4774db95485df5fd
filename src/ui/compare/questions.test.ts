import { describe, expect, it } from 'vitest';
import { parseQuestions } from './questions';
import { runOfRoute, compareHash } from './compare-route';

describe('parseQuestions', () => {
  it('one question per line, a tab then an optional reference', () => {
    expect(parseQuestions('  What is 2+2?\t4\n\nName a colour.\n')).toEqual({
      ok: true,
      questions: [
        { prompt: 'What is 2+2?', reference: '4' },
        { prompt: 'Name a colour.', reference: null },
      ],
    });
  });

  it('a JSON array of {prompt, completion} entries (completion optional)', () => {
    expect(parseQuestions('[{"prompt":"Q1","completion":"A1"},{"prompt":"Q2"}]')).toEqual({
      ok: true,
      questions: [
        { prompt: 'Q1', reference: 'A1' },
        { prompt: 'Q2', reference: null },
      ],
    });
  });

  it('no entries: a hint, not an error; bad JSON and wrong shapes say what is wrong', () => {
    expect(parseQuestions(' \n ')).toMatchObject({ ok: false, empty: true });
    expect(parseQuestions('[]')).toEqual({
      ok: false,
      error: 'The JSON array has no entries with a prompt.',
    });
    expect(parseQuestions('[{"prompt": 1}]')).toEqual({
      ok: false,
      error:
        'The JSON must be an array of {prompt, completion} entries: 0.prompt must be a string.',
    });
    expect(parseQuestions('[{"prompt":')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The questions look like JSON but do not parse/),
    });
  });
});

describe('compare route', () => {
  it('reads and writes ?run=', () => {
    expect(runOfRoute('/compare?run=abc_1')).toBe('abc_1');
    expect(runOfRoute('/compare')).toBeNull();
    expect(compareHash('a b')).toBe('#/compare?run=a%20b');
    expect(runOfRoute(compareHash('a b').slice(1))).toBe('a b');
  });
});
