import { describe, expect, it } from 'vitest';
import {
  clampInputHeight,
  formatBytes,
  formatPercent,
  formatProgressLabel,
  formatTps,
  isNearBottom,
} from './format';

describe('format', () => {
  it.each([
    [0, '0.00B'],
    [1023, '1023.00B'],
    [1024, '1.00kB'],
    [1536, '1.50kB'],
    [5 * 1024 ** 2, '5.00MB'],
    [1.25 * 1024 ** 3, '1.25GB'],
    [3 * 1024 ** 4, '3.00TB'],
    [2048 * 1024 ** 4, '2048.00TB'],
  ])('formatBytes(%d) = %s (1024-based, two decimals)', (n, s) => {
    expect(formatBytes(n)).toBe(s);
  });

  it('percentages have two decimals', () => {
    expect(formatPercent(12.3456)).toBe('12.35%');
    expect(formatPercent(100)).toBe('100.00%');
    expect(formatPercent(Number.NaN)).toBe('0.00%');
  });

  it('the size shows only when the total is numeric', () => {
    expect(formatProgressLabel('onnx/model.onnx', 50, 2 * 1024 ** 2)).toBe(
      'onnx/model.onnx (50.00% of 2.00MB)',
    );
    expect(formatProgressLabel('config.json', 7.5)).toBe('config.json (7.50%)');
    expect(formatProgressLabel('x', 1, Number.NaN)).toBe('x (1.00%)');
  });

  it('tokens per second with two decimals', () => {
    expect(formatTps(12.345)).toBe('12.35 tokens/second');
  });

  it('auto-scroll threshold is 120 px', () => {
    expect(isNearBottom({ scrollTop: 380, scrollHeight: 1000, clientHeight: 500 })).toBe(true);
    expect(isNearBottom({ scrollTop: 379, scrollHeight: 1000, clientHeight: 500 })).toBe(false);
  });

  it('input height stays within 24–200 px', () => {
    expect(clampInputHeight(0)).toBe(24);
    expect(clampInputHeight(100)).toBe(100);
    expect(clampInputHeight(999)).toBe(200);
  });
});
