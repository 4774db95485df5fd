import { describe, expect, it } from 'vitest';
import { isObject, isRecord, isUnknownArray } from './guards';

describe('type guards', () => {
  it('isObject: any non-null object, arrays included', () => {
    expect(isObject({ a: 1 })).toBe(true);
    expect(isObject([])).toBe(true);
    expect(isObject(null)).toBe(false);
    expect(isObject('text')).toBe(false);
    expect(isObject(undefined)).toBe(false);
  });
  it('isRecord: a JSON object, not an array', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
    expect(isRecord(3)).toBe(false);
  });
  it('isUnknownArray: arrays only', () => {
    expect(isUnknownArray([1, 'a'])).toBe(true);
    expect(isUnknownArray({ length: 0 })).toBe(false);
  });
});
