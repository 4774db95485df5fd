import { describe, expect, it } from 'vitest';
import { datasetFileName } from './Tools';

describe('datasetFileName', () => {
  it('turns a title into a name the training service accepts', () => {
    const rule = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
    for (const title of [
      'Port Elsby Lantern Festival',
      '  ../../etc/passwd',
      'Ça va? Très bien!',
      '',
      '***',
    ]) {
      expect(datasetFileName(title)).toMatch(rule);
    }
    expect(datasetFileName('Port Elsby Lantern Festival')).toBe('port-elsby-lantern-festival');
    expect(datasetFileName('***')).toBe('input_data');
  });
});
