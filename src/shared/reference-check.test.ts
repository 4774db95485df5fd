import { describe, expect, it } from 'vitest';
import {
  REPLAY_STEPS,
  alternativeVariant,
  compareReplay,
  parseTrainerReference,
  replaySteps,
  type TrainerReference,
} from './reference-check';

/** PyTorch's 20 greedy tokens; every lead clear (>= 1) but where a test lowers it. */
function reference(overrides: Partial<TrainerReference> = {}): TrainerReference {
  return {
    promptIds: [1, 2, 3],
    tokens: Array.from({ length: 20 }, (_, i) => 100 + i),
    margins: Array.from({ length: 20 }, () => 2.5),
    clearMargin: 1,
    published: ['q4f16', 'q4', 'fp16', 'fp32'],
    ...overrides,
  };
}
const same = (ref: TrainerReference) => ref.tokens.slice(0, REPLAY_STEPS);
const options = { dtype: 'q4f16', shaderF16: true };

describe('compareReplay', () => {
  it('every clear step agreed → agreed, over min(16, tokens) steps', () => {
    const ref = reference();
    expect(compareReplay(ref, same(ref), options)).toEqual({
      result: 'agreed',
      dtype: 'q4f16',
      steps: 16,
      compared: 16,
    });
    const short = reference({ tokens: [7, 8, 9], margins: [3, 3, 3] });
    expect(replaySteps(short)).toBe(3);
    expect(compareReplay(short, [7, 8, 9], options)).toMatchObject({ steps: 3, compared: 3 });
  });

  it('a clear step that differs → diverged, naming the first one (1-based) and its lead', () => {
    const ref = reference({ margins: Array.from({ length: 20 }, (_, i) => (i === 2 ? 2.41 : 3)) });
    const got = same(ref);
    got[2] = 512;
    got[5] = 513;
    const check = compareReplay(ref, got, { ...options, decode: (id) => `<${id}>` });
    expect(check).toEqual({
      result: 'diverged',
      dtype: 'q4f16',
      steps: 16,
      compared: 3,
      divergence: {
        step: 3,
        expected: { id: 102, text: '<102>' },
        got: { id: 512, text: '<512>' },
        lead: 2.41,
      },
      alternative: 'q4',
    });
  });

  it('near-ties are not compared; a near-tie that differs ends the comparison (the answers part)', () => {
    // Step 2 is a near-tie that agreed, step 4 one that differs: steps after it are not compared,
    // even where they differ at a clear margin.
    const margins = Array.from({ length: 20 }, (_, i) => (i === 1 || i === 3 ? 0.2 : 3));
    const ref = reference({ margins });
    const got = same(ref);
    got[3] = 900;
    got[6] = 901;
    const check = compareReplay(ref, got, options);
    expect(check).toMatchObject({
      result: 'agreed',
      compared: 2,
      split: { step: 4, expected: { id: 103 }, got: { id: 900 }, lead: 0.2 },
    });
  });

  it('no clear step → inconclusive', () => {
    const ref = reference({ margins: Array.from({ length: 20 }, () => 0.5) });
    expect(compareReplay(ref, same(ref), options)).toEqual({
      result: 'inconclusive',
      dtype: 'q4f16',
      steps: 16,
    });
    // The first step, a near-tie, went the other way: nothing could be compared.
    const got = same(ref);
    got[0] = 1;
    expect(compareReplay(ref, got, options)).toMatchObject({
      result: 'inconclusive',
      split: { step: 1 },
    });
  });

  it('a replay cut short compares only the tokens it made', () => {
    const ref = reference();
    expect(compareReplay(ref, same(ref).slice(0, 5), options)).toMatchObject({
      result: 'agreed',
      steps: 5,
      compared: 5,
    });
  });
});

describe('alternativeVariant', () => {
  it('the nearest published variant this GPU runs', () => {
    const all = ['q4f16', 'q4', 'fp16', 'fp32'];
    expect(alternativeVariant(all, 'q4f16', true)).toBe('q4');
    expect(alternativeVariant(all, 'q4', true)).toBe('q4f16');
    // Without shader-f16 neither q4f16 nor fp16 runs.
    expect(alternativeVariant(all, 'q4', false)).toBe('fp32');
    expect(alternativeVariant(['q4f16', 'q4'], 'q4', false)).toBeNull();
    expect(alternativeVariant(['fp32'], 'fp32', true)).toBeNull();
  });
});

describe('parseTrainerReference', () => {
  const report = {
    format: 2,
    reference: { prompt_ids: [5, 6], tokens: [7, 8, 9], margins: [1.5, 0.1, 2] },
    published: ['q4f16', 'q4'],
    variants: { q4: { tolerance: { clear_margin: 1.23 } }, q4f16: { tolerance: {} } },
  };

  it("reads the reference and the variant's clear margin", () => {
    expect(parseTrainerReference(report, 'q4')).toEqual({
      promptIds: [5, 6],
      tokens: [7, 8, 9],
      margins: [1.5, 0.1, 2],
      clearMargin: 1.23,
      published: ['q4f16', 'q4'],
    });
  });

  it('says why there is nothing to replay', () => {
    expect(parseTrainerReference({ format: 1, variants: {} }, 'q4')).toEqual({
      missing: 'this export has no reference to replay (it was made before the check)',
    });
    expect(parseTrainerReference(report, 'q4f16')).toEqual({
      missing: 'export.json has no tolerance for the q4f16 variant',
    });
    expect(parseTrainerReference({ ...report, reference: { prompt_ids: [] } }, 'q4')).toEqual({
      missing: "export.json's reference is malformed",
    });
    expect(parseTrainerReference('[]', 'q4')).toEqual({
      missing: 'export.json is not a JSON object',
    });
  });
});
