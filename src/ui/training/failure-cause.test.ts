import { describe, expect, it } from 'vitest';
import { failureCause } from './failure-cause';

describe('failureCause', () => {
  it("names finetune.py's missing packages, without its 'error:' prefix", () => {
    expect(
      failureCause([
        'error: Missing Python packages: torch, transformers, peft. Install them with python3 -m pip install -r training/requirements.txt',
      ]),
    ).toBe(
      'Missing Python packages: torch, transformers, peft. Install them with python3 -m pip install -r training/requirements.txt',
    );
  });

  it('recognises CUDA out of memory even when later lines follow', () => {
    expect(
      failureCause([
        'step 3/120 loss 1.2',
        'Traceback (most recent call last):',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
        'exiting',
      ]),
    ).toBe(
      'The GPU ran out of memory (CUDA out of memory). torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    );
  });

  it('falls back to the last error line, never the bare Traceback header', () => {
    expect(
      failureCause(['Traceback (most recent call last):', '  File "x.py"', 'ValueError: bad lr']),
    ).toBe('ValueError: bad lr');
    expect(failureCause(['Traceback (most recent call last):'])).toBeNull();
  });

  it('is null for a log with nothing telling', () => {
    expect(failureCause(['step 1/120 loss 2.0', ''])).toBeNull();
    expect(failureCause([])).toBeNull();
  });
});
