import { describe, expect, it } from 'vitest';
import { parseDatasetOutput } from './parse';

const pair = { prompt: 'Q?', completion: 'A.' };

describe('parseDatasetOutput', () => {
  it('reads a bare list', () => {
    expect(parseDatasetOutput(JSON.stringify([pair]))).toEqual({ ok: true, items: [pair] });
  });
  it('reads {"entries": [...]} (the JSON-schema form) and other one-list objects', () => {
    expect(parseDatasetOutput(JSON.stringify({ entries: [pair] }))).toEqual({
      ok: true,
      items: [pair],
    });
    expect(parseDatasetOutput(JSON.stringify({ qa: [pair], n: 1 }))).toEqual({
      ok: true,
      items: [pair],
    });
  });
  it('reads a single pair object as one item', () => {
    expect(parseDatasetOutput(JSON.stringify(pair))).toEqual({ ok: true, items: [pair] });
  });
  it('strips json fences first (PRODUCT.md §4)', () => {
    expect(parseDatasetOutput('```json\n' + JSON.stringify([pair]) + '\n```')).toEqual({
      ok: true,
      items: [pair],
    });
  });
  it('recovers JSON wrapped in prose', () => {
    expect(parseDatasetOutput('Here it is: ' + JSON.stringify([pair]) + ' Hope it helps.')).toEqual(
      {
        ok: true,
        items: [pair],
      },
    );
  });
  it('empty reply', () => {
    expect(parseDatasetOutput('  ')).toMatchObject({ ok: false, kind: 'empty-output' });
    expect(parseDatasetOutput('```json\n```')).toMatchObject({ ok: false, kind: 'empty-output' });
  });
  it('not JSON', () => {
    expect(parseDatasetOutput('Sure! What is it about?')).toMatchObject({
      ok: false,
      kind: 'not-json',
    });
    expect(parseDatasetOutput('[{"prompt": "cut off')).toMatchObject({
      ok: false,
      kind: 'not-json',
    });
  });
  it('wrong shape', () => {
    expect(parseDatasetOutput('42')).toMatchObject({ ok: false, kind: 'wrong-shape' });
    expect(parseDatasetOutput('null')).toMatchObject({ ok: false, kind: 'wrong-shape' });
    expect(parseDatasetOutput('[]')).toMatchObject({
      ok: false,
      kind: 'wrong-shape',
      detail: 'the list is empty',
    });
    expect(parseDatasetOutput('{"questions": "none", "answers": 3}')).toMatchObject({
      ok: false,
      kind: 'wrong-shape',
      detail: expect.stringContaining('questions, answers') as string,
    });
  });
});
