import { describe, expect, it } from 'vitest';
import { divergedCheck } from './reference-check.fixtures';
import { formatLead, referenceCheckText } from './reference-check-text';

describe('referenceCheckText', () => {
  it('agreed', () => {
    expect(referenceCheckText({ result: 'agreed', dtype: 'q4', steps: 16, compared: 15 })).toEqual({
      tone: 'ok',
      headline: "Checked on this GPU: the same answer as the trainer's",
      detail: 'q4 · 16 tokens replayed, 15 with a clear lead compared',
    });
  });

  it('diverged: a warning naming the step, both tokens, the lead and the variant to try', () => {
    const text = referenceCheckText(
      divergedCheck({
        step: 3,
        dtype: 'q4f16',
        expected: { id: 87, text: ' Paris' },
        got: { id: 512, text: '\n' },
        lead: 2.4127,
        alternative: 'q4',
      }),
    );
    expect(text.tone).toBe('warning');
    expect(text.headline).toBe(
      "Checked on this GPU: step 3 differs from the trainer's answer (token 512 “\\n” instead of 87 “ Paris”, whose lead was 2.41). The model stays usable; if its answers look wrong, try the other variant (q4 instead of q4f16).",
    );
    const none = referenceCheckText(divergedCheck({ step: 1, lead: 0.05, alternative: null }));
    expect(none.headline).toBe(
      "Checked on this GPU: step 1 differs from the trainer's answer (token 512 instead of 87, whose lead was 0.050). The model stays usable; if its answers look wrong, no other variant of it runs on this GPU.",
    );
  });

  it('inconclusive and unavailable are neutral', () => {
    expect(referenceCheckText({ result: 'inconclusive', dtype: 'q4', steps: 16 })).toEqual({
      tone: 'neutral',
      headline:
        "Checked on this GPU: inconclusive — none of the 16 steps replayed had a clear lead in the trainer's run, so no token was compared",
      detail: 'q4',
    });
    expect(
      referenceCheckText({ result: 'unavailable', reason: 'could not read export.json (404)' }),
    ).toEqual({
      tone: 'neutral',
      headline: 'Not checked on this GPU: could not read export.json (404)',
      detail: null,
    });
  });

  it('leads: two decimals, two significant digits below 0.1', () => {
    expect(formatLead(2.4127)).toBe('2.41');
    expect(formatLead(0.000512)).toBe('0.00051');
  });
});
