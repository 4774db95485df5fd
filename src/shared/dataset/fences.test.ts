import { describe, expect, it } from 'vitest';
import { stripJsonFences } from './fences';

describe('stripJsonFences', () => {
  it('strips ```json fences', () => {
    expect(stripJsonFences('```json\n[{"a":1}]\n```')).toBe('[{"a":1}]');
  });
  it('strips bare ``` fences and surrounding whitespace', () => {
    expect(stripJsonFences('\n  ```\n{"x": 2}\n```  \n')).toBe('{"x": 2}');
  });
  it('takes the fenced block when prose surrounds it', () => {
    expect(stripJsonFences('Here you go:\n```json\n[1, 2]\n```\nEnjoy!')).toBe('[1, 2]');
  });
  it('strips an opening fence whose closing one never came (cut-off reply)', () => {
    expect(stripJsonFences('```json\n[{"prompt": "q"')).toBe('[{"prompt": "q"');
  });
  it('leaves unfenced text as it is (trimmed)', () => {
    expect(stripJsonFences('  [1]  ')).toBe('[1]');
    expect(stripJsonFences('no json here')).toBe('no json here');
  });
  it('keeps backticks inside JSON strings when there are no fences', () => {
    expect(stripJsonFences('{"a": "use `x`"}')).toBe('{"a": "use `x`"}');
  });
});
