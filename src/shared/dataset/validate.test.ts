import { describe, expect, it } from 'vitest';
import { duplicateKey, entryProblem, mergeChunkResults, validateEntries } from './validate';

const ok = (prompt: string) => ({
  prompt,
  completion: 'It started in 1894. It is held in October.',
});

describe('validateEntries', () => {
  it('keeps valid pairs, trimmed', () => {
    const r = validateEntries([{ prompt: '  Q one? ', completion: ' A. B. ' }]);
    expect(r.entries).toEqual([{ prompt: 'Q one?', completion: 'A. B.' }]);
    expect(r.invalid).toEqual([]);
  });

  it('counts every invalid item with its reason, in order', () => {
    const items = [
      ok('Q1?'),
      'text',
      null,
      [1],
      { prompt: 'Q2?' },
      { completion: 'A.' },
      { prompt: 42, completion: 'A.' },
      { prompt: '  ', completion: 'A.' },
      { prompt: 'Q3?', completion: '' },
      { prompt: 'Q4?', completion: 'One. Two. Three. Four. Five.' },
      ok('q1'),
    ];
    const r = validateEntries(items, 2);
    expect(r.entries).toHaveLength(1);
    expect(r.invalid.map((x) => [x.index, x.reason])).toEqual([
      [1, 'not an object'],
      [2, 'not an object'],
      [3, 'not an object'],
      [4, 'completion missing or not text'],
      [5, 'prompt missing or not text'],
      [6, 'prompt missing or not text'],
      [7, 'empty prompt'],
      [8, 'empty completion'],
      [9, 'completion has 5 sentences (1–4 allowed)'],
      [10, 'duplicate question'],
    ]);
    expect(r.invalid.every((x) => x.chunk === 2)).toBe(true);
    expect(r.invalid[0]?.item).toBe('text');
  });

  it('accepts 1 to 4 sentences', () => {
    expect(entryProblem({ prompt: 'Q?', completion: 'One.' })).toBeNull();
    expect(entryProblem({ prompt: 'Q?', completion: 'One. Two. Three. Four.' })).toBeNull();
  });

  it('treats case, spacing and the question mark as the same question', () => {
    expect(duplicateKey({ prompt: 'When  is it?', completion: '' })).toBe(
      duplicateKey({ prompt: 'when is it', completion: '' }),
    );
  });
});

describe('mergeChunkResults', () => {
  it('removes duplicates across chunks and reports them', () => {
    const a = validateEntries([ok('Q1?'), ok('Q2?')], 0);
    const b = validateEntries([ok('q2'), ok('Q3?')], 1);
    const merged = mergeChunkResults([a, b]);
    expect(merged.entries.map((e) => e.prompt)).toEqual(['Q1?', 'Q2?', 'Q3?']);
    expect(merged.invalid).toEqual([
      { index: 0, chunk: 1, reason: 'duplicate question', item: ok('q2') },
    ]);
  });
});
