import { describe, expect, it } from 'vitest';
import { chunkText, pairsPerChunk } from './chunk';

const para = (n: number, len: number) => `P${n} ` + 'x'.repeat(len - 3);

describe('chunkText', () => {
  it('no chunk for empty text; one chunk for a short text', () => {
    expect(chunkText('  \n\n ', 100)).toEqual([]);
    expect(chunkText('Hello.\n\nWorld.', 100)).toEqual(['Hello.\n\nWorld.']);
  });

  it('splits at paragraph boundaries, packing paragraphs up to the limit', () => {
    const text = [para(1, 40), para(2, 40), para(3, 40)].join('\n\n');
    const chunks = chunkText(text, 90);
    expect(chunks).toEqual([`${para(1, 40)}\n\n${para(2, 40)}`, para(3, 40)]);
  });

  it('normalises CRLF and blank lines with spaces', () => {
    expect(chunkText('A.\r\n \r\nB.', 3)).toEqual(['A.', 'B.']);
  });

  it('splits an over-long paragraph at sentence ends, then a long sentence at spaces', () => {
    const chunks = chunkText('One two three. Four five six. Seven eight nine.', 20);
    expect(chunks).toEqual(['One two three.', 'Four five six.', 'Seven eight nine.']);
    const words = chunkText('aaaa bbbb cccc dddd eeee', 10);
    expect(words.every((c) => c.length <= 10)).toBe(true);
    expect(words.join(' ')).toBe('aaaa bbbb cccc dddd eeee');
  });

  it('never loses or exceeds: every chunk within the limit, all words kept', () => {
    const text = Array.from({ length: 30 }, (_, i) =>
      `Sentence ${i} of the story. `.repeat((i % 5) + 1),
    ).join('\n\n');
    const chunks = chunkText(text, 200);
    expect(chunks.every((c) => c.length <= 200)).toBe(true);
    expect(chunks.join(' ').split(/\s+/).filter(Boolean)).toEqual(
      text.split(/\s+/).filter(Boolean),
    );
  });
});

describe('pairsPerChunk', () => {
  it('spreads the total in proportion to length, summing to the total', () => {
    expect(pairsPerChunk(['a'.repeat(100), 'b'.repeat(100)], 10)).toEqual([5, 5]);
    expect(pairsPerChunk(['a'.repeat(300), 'b'.repeat(100)], 10)).toEqual([8, 2]);
    const counts = pairsPerChunk(['a'.repeat(10), 'b'.repeat(20), 'c'.repeat(30)], 7);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(7);
  });
  it('asks at least one pair of each chunk', () => {
    expect(pairsPerChunk(['a', 'b', 'c'], 2)).toEqual([1, 1, 1]);
  });
});
