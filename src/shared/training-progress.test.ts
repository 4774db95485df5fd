import { describe, expect, it } from 'vitest';
import {
  downloadInLines,
  downloadLine,
  formatPercent,
  lastStepCountInLines,
  nextProgress,
  stepLineCount,
  toPercent,
} from './training-progress';

describe('stepLineCount', () => {
  it('reads a whole `step N/M` line', () => {
    expect(stepLineCount('step 7/120')).toEqual({ current: 7, total: 120 });
    expect(stepLineCount('  step 3/10 ')).toEqual({ current: 3, total: 10 });
  });

  it('ignores a zero total, decimals and any other text around the count', () => {
    expect(stepLineCount('step 0/0')).toBeNull();
    expect(stepLineCount('step 0.5/1')).toBeNull();
    expect(stepLineCount('step 3/120 loss 1.2 (epoch 1/3)')).toBeNull();
    expect(stepLineCount('no progress here')).toBeNull();
  });

  // The Runs list once showed "17/17 steps" for a 120-step run and "5/5 steps" for a run that
  // never trained, from these lines.
  it('does not count retries, export checks or library progress bars', () => {
    for (const line of [
      'Retry 5/5: connection reset',
      'tokens 17/17 clear-margin steps agree',
      ' 50%|█████     | 60/120 [00:10<00:10, 5.9it/s]',
      'Loading weights 21/21',
      '2024/01/02 12:00 step 3/4',
    ])
      expect(stepLineCount(line), line).toBeNull();
  });
});

describe('lastStepCountInLines', () => {
  it('searches from the last line backwards', () => {
    expect(lastStepCountInLines(['step 1/10', 'step 2/10', 'saving…'])).toEqual({
      current: 2,
      total: 10,
    });
    expect(lastStepCountInLines([])).toBeNull();
  });

  it('skips later lines that are not step lines', () => {
    const log = [
      'step 40/120',
      'Retry 5/5',
      '100%|██████████| 21/21 [00:01<00:00]',
      'tokens 17/17 clear-margin steps agree',
    ];
    expect(lastStepCountInLines(log)).toEqual({ current: 40, total: 120 });
    expect(lastStepCountInLines(['Retry 5/5', 'tokens 17/17 clear-margin steps agree'])).toBeNull();
  });
});

describe('toPercent', () => {
  it('has two decimals', () => {
    expect(toPercent({ current: 1, total: 3 })).toBe(33.33);
    expect(toPercent({ current: 2, total: 3 })).toBe(66.67);
    expect(formatPercent(toPercent({ current: 1, total: 120 }))).toBe('0.83%');
  });

  it('never exceeds 100% nor goes below 0%', () => {
    expect(toPercent({ current: 150, total: 120 })).toBe(100);
    expect(toPercent({ current: 0, total: 120 })).toBe(0);
  });
});

describe('nextProgress', () => {
  it('never goes backwards', () => {
    const first = nextProgress(0, ['step 60/120']);
    expect(first.percent).toBe(50);
    const second = nextProgress(first.percent, ['step 30/120']);
    expect(second.percent).toBe(50);
    expect(second.reachedTotal).toBe(false);
  });

  it('keeps the previous value when the tail has no step line', () => {
    expect(nextProgress(42.5, ['saving the adapter'])).toMatchObject({ percent: 42.5, step: null });
  });

  it('reports reaching the total (and beyond) at 100%', () => {
    expect(nextProgress(90, ['step 120/120'])).toMatchObject({ percent: 100, reachedTotal: true });
    expect(nextProgress(90, ['step 130/120'])).toMatchObject({ percent: 100, reachedTotal: true });
  });
});

describe('the base model download (hub_download.py lines)', () => {
  const line = (figures: Record<string, unknown>) =>
    JSON.stringify({
      download: {
        file: 'model.safetensors',
        file_bytes: 100,
        file_total: 1000,
        bytes: 300,
        total: 1200,
        files_done: 2,
        files: 6,
        cached_bytes: 0,
        ...figures,
      },
    });

  it('reads the figures of a download line, and nothing else', () => {
    expect(downloadLine(line({}))).toEqual({
      file: 'model.safetensors',
      fileBytes: 100,
      fileTotal: 1000,
      bytes: 300,
      total: 1200,
      filesDone: 2,
      files: 6,
      cachedBytes: 0,
      bytesPerSecond: 0,
    });
    expect(downloadLine(line({ bytes_per_second: 2.5e7 }))?.bytesPerSecond).toBe(2.5e7);
    expect(downloadLine('step 1/2')).toBeNull();
    expect(downloadLine('{"download": 3}')).toBeNull();
    expect(downloadLine(line({ bytes: -1 }))).toBeNull();
    expect(downloadLine(line({ total: '1200' }))).toBeNull();
    expect(downloadLine('{"download": {"file": "x", "bytes": 1')).toBeNull();
  });

  it('a download is under way until every file is done or a step line comes', () => {
    expect(downloadInLines(['loading…', line({}), 'Retry 5/5'])?.bytes).toBe(300);
    expect(downloadInLines([line({}), line({ files_done: 6, bytes: 1200 })])).toBeNull();
    expect(downloadInLines([line({}), 'step 0/120'])).toBeNull();
    expect(downloadInLines(['step 3/120', 'tokens 17/17'])).toBeNull();
    // A download line does not move the training bar.
    expect(lastStepCountInLines([line({ files_done: 5, files: 5 })])).toBeNull();
  });
});
