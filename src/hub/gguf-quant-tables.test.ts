import { describe, expect, it } from 'vitest';
import { ggufQuantTables } from './gguf-quant-tables';

describe('ggufQuantTables', () => {
  const { fileTypes, tensorTypes } = ggufQuantTables();
  const code = (table: typeof fileTypes, name: string) => table.find((e) => e.name === name)?.code;

  it('file types: F32=0, F16=1, BF16=32', () => {
    expect([code(fileTypes, 'F32'), code(fileTypes, 'F16'), code(fileTypes, 'BF16')]).toEqual([
      0, 1, 32,
    ]);
  });

  it('tensor types: F32=0, F16=1, Q8_0=8', () => {
    expect([code(tensorTypes, 'F32'), code(tensorTypes, 'F16'), code(tensorTypes, 'Q8_0')]).toEqual(
      [0, 1, 8],
    );
  });

  it('sorted by code, names only (no reverse enum entries)', () => {
    for (const table of [fileTypes, tensorTypes]) {
      expect(table.map((e) => e.code)).toEqual([...table.map((e) => e.code)].sort((a, b) => a - b));
      expect(table.every((e) => typeof e.name === 'string' && !/^\d+$/.test(e.name))).toBe(true);
    }
    expect(fileTypes.length).toBeGreaterThan(30);
  });
});
