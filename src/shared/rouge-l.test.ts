import { describe, expect, it } from 'vitest';
import { lcsLength, rougeL, rougeLF1, words } from './rouge-l';

describe('words', () => {
  it('lower-cases and drops punctuation and symbols', () => {
    expect(words('Hello, World! It’s 42 — (really).')).toEqual([
      'hello',
      'world',
      'it',
      's',
      '42',
      'really',
    ]);
  });

  it('keeps accented letters in one word, composed or decomposed', () => {
    expect(words('Café crème')).toEqual(['café', 'crème']);
    expect(words('Cafe\u0301')).toEqual(['café']);
  });

  it('makes every Chinese or Japanese character a word, and keeps other scripts in runs', () => {
    expect(words('東京は日本の首都です。')).toEqual([
      '東',
      '京',
      'は',
      '日',
      '本',
      'の',
      '首',
      '都',
      'で',
      'す',
    ]);
    expect(words('我爱北京')).toEqual(['我', '爱', '北', '京']);
    expect(words('コーヒー')).toEqual(['コ', 'ー', 'ヒ', 'ー']);
    expect(words('GPUで速い')).toEqual(['gpu', 'で', '速', 'い']);
    expect(words('Привет, мир')).toEqual(['привет', 'мир']);
    expect(words('مرحبا بالعالم')).toEqual(['مرحبا', 'بالعالم']);
  });

  it('has no words in an empty or punctuation-only text', () => {
    expect(words('')).toEqual([]);
    expect(words(' ,.!? — 。、「」 ')).toEqual([]);
  });
});

describe('lcsLength', () => {
  it('counts the longest common subsequence, gaps allowed', () => {
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'c', 'd'])).toBe(3);
    expect(lcsLength(['a', 'b'], ['b', 'a'])).toBe(1);
    expect(lcsLength([], ['a'])).toBe(0);
  });
});

describe('ROUGE-L F1', () => {
  it('matches a pair computed by hand', () => {
    // answer: the cat sat on the mat (6); reference: the cat is on the mat (6)
    // LCS = the cat on the mat = 5; P = R = 5/6; F1 = 5/6.
    expect(rougeLF1('The cat sat on the mat.', 'the cat is on the mat')).toBeCloseTo(5 / 6, 10);
    // answer: police killed the gunman (4); reference: the police kill the gunman (5)
    // LCS = police the gunman = 3; P = 3/4, R = 3/5; F1 = 2·0.75·0.6 / 1.35 = 2/3.
    const score = rougeL('police killed the gunman', 'the police kill the gunman');
    expect(score.precision).toBeCloseTo(3 / 4, 10);
    expect(score.recall).toBeCloseTo(3 / 5, 10);
    expect(score.f1).toBeCloseTo(2 / 3, 10);
  });

  it('is 1 for the same words whatever the case and punctuation, 0 with nothing shared', () => {
    expect(rougeLF1('Paris!', 'paris')).toBe(1);
    expect(rougeLF1('Yes.', 'No.')).toBe(0);
  });

  it('is 0 when either text is empty or has no words', () => {
    expect(rougeLF1('', 'reference')).toBe(0);
    expect(rougeLF1('answer', '')).toBe(0);
    expect(rougeLF1('', '')).toBe(0);
    expect(rougeLF1('...', '!!!')).toBe(0);
  });

  it('scores Japanese and Chinese character by character', () => {
    // 東京は日本の首都です (10 characters) vs 日本の首都は東京です (10): LCS 日本の首都です = 7
    expect(rougeLF1('東京は日本の首都です。', '日本の首都は東京です')).toBeCloseTo(7 / 10, 10);
    // 我爱北京 (4) vs 我喜欢北京 (5): LCS 我北京 = 3; P = 3/4, R = 3/5 → F1 = 2/3
    expect(rougeLF1('我爱北京', '我喜欢北京')).toBeCloseTo(2 / 3, 10);
  });

  it('treats accented words as words (NFC), and different accents as different words', () => {
    expect(rougeLF1('Cafe\u0301 au lait', 'café au lait')).toBe(1);
    // résumé ≠ resume: LCS 1 (the) of 2 words each
    expect(rougeLF1('the résumé', 'the resume')).toBeCloseTo(1 / 2, 10);
  });
});
