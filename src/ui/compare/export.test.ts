import { describe, expect, it } from 'vitest';
import { EVALUATION_VERSION, type EvaluationRecord } from '../../shared/evaluation';
import { defaultSettings } from '../../shared/generation-settings';
import { toCsv, toExport } from './export';

const record: EvaluationRecord = {
  version: EVALUATION_VERSION,
  id: 'e1',
  createdAt: 0,
  updatedAt: 0,
  status: 'done',
  error: null,
  source: { kind: 'held-out', runId: 'r1' },
  settings: { ...defaultSettings(), systemPrompt: 'Say "hi"' },
  a: { value: 'a', label: 'Base', id: 'org/base' },
  b: { value: 'b', label: 'Tuned', id: 'trained/run' },
  rows: [
    {
      prompt: 'Where, exactly?',
      reference: 'the cat is on the mat',
      a: { text: 'on a "mat"\nyes', numTokens: 3, seconds: 1, truncated: false },
      b: { text: 'the cat sat on the mat', numTokens: 6, seconds: 2, truncated: false },
    },
  ],
};

describe('export', () => {
  it('JSON: every answer scored, the summary, both ids and the settings', () => {
    const out = toExport(record);
    expect(out.rows[0]?.scoreB).toBeCloseTo(5 / 6, 10);
    expect(out.rows[0]?.closer).toBe('b');
    expect(out.summary).toMatchObject({ bCloser: 1, compared: 1 });
    expect(out.a.id).toBe('org/base');
    expect(out.settings.systemPrompt).toBe('Say "hi"');
  });

  it('CSV: quoted fields, doubled quotes, line breaks kept inside a field', () => {
    const [header, row] = toCsv(record).split('\r\n');
    expect(header?.startsWith('"question","reference","model_a","answer_a","score_a"')).toBe(true);
    expect(row).toContain(
      '"Where, exactly?","the cat is on the mat","org/base","on a ""mat""\nyes",',
    );
    expect(row).toContain('"trained/run","the cat sat on the mat","0.8333333333333334"');
    expect(row?.endsWith('"Say ""hi"""')).toBe(true);
  });
});
