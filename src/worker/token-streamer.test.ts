import { describe, expect, it } from 'vitest';
import { TokenTextStreamer, type Channel } from './token-streamer';

// A toy vocabulary: id → text; 900/901 are <think>/</think>; 50+51 form 'é' in two halves.
const VOCAB: Record<string, string> = {
  '1': 'Hello',
  '2': ' world',
  '3': '\n',
  '4': 'Next',
  '7': ' ok',
};
function decode(ids: bigint[]): string {
  let s = '';
  for (let i = 0; i < ids.length; i++) {
    const id = String(ids[i]);
    if (id === '50') s += ids[i + 1] === 51n ? 'é' : '\uFFFD';
    else if (id === '51') continue;
    else s += VOCAB[id] ?? '';
  }
  return s;
}

function run(prompt: bigint[], tokens: bigint[]) {
  const pieces: Array<[string, Channel]> = [];
  let count = 0;
  const s = new TokenTextStreamer({
    decode,
    thinkOpenId: 900n,
    thinkCloseId: 901n,
    onText: (t, c) => pieces.push([t, c]),
    onToken: () => void count++,
  });
  s.put([prompt]);
  for (const t of tokens) s.put([[t]]);
  s.end();
  return { pieces, count };
}

describe('TokenTextStreamer', () => {
  it('emits text after every token, skipping the prompt', () => {
    const { pieces, count } = run([1n, 2n], [1n, 2n, 3n, 4n]);
    expect(pieces).toEqual([
      ['Hello', 'answer'],
      [' world', 'answer'],
      ['\n', 'answer'],
      ['Next', 'answer'],
    ]);
    expect(count).toBe(4);
  });

  it('holds back an incomplete multi-byte character until it completes', () => {
    const { pieces } = run([], [1n, 50n, 51n, 7n]);
    expect(pieces.map((p) => p[0])).toEqual(['Hello', 'é', ' ok']);
  });

  it('splits reasoning from the answer by token id', () => {
    const { pieces, count } = run([], [900n, 1n, 901n, 4n]);
    expect(pieces).toEqual([
      ['Hello', 'thinking'],
      ['Next', 'answer'],
    ]);
    expect(count).toBe(4);
  });

  it('starts in reasoning when the prompt ends with the open token (DeepSeek R1 template)', () => {
    const { pieces } = run([1n, 900n], [1n, 901n, 2n]);
    expect(pieces).toEqual([
      ['Hello', 'thinking'],
      [' world', 'answer'],
    ]);
  });

  it('does not treat the text "<think>" as reasoning (ids decide, not regex)', () => {
    VOCAB['8'] = '<think>';
    const { pieces } = run([], [8n, 1n]);
    expect(pieces.every(([, c]) => c === 'answer')).toBe(true);
  });
});
