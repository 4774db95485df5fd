import { describe, expect, it } from 'vitest';
import { countSentences } from './sentences';

describe('countSentences', () => {
  it.each([
    ['', 0],
    ['   ', 0],
    ['One sentence.', 1],
    ['No full stop', 1],
    ['First. Second! Third?', 3],
    ['It costs 3.5 pounds. It opens at 9.', 2],
    ['Dr. Smith led it. It began in 1894.', 2],
    ['Bring e.g. a lantern. Then walk.', 2],
    ['Wait... Then go.', 2],
    ['He said "Go." Then left.', 2],
    ['J. R. Tolkien wrote it.', 1],
  ])('%j has %i sentences', (text, n) => {
    expect(countSentences(text)).toBe(n);
  });
});
