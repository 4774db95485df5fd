import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { RunProgress } from './RunProgress';

const download = (figures: Record<string, unknown>) =>
  JSON.stringify({
    download: {
      file: 'model.safetensors',
      file_bytes: 1.1e9,
      file_total: 6.4e9,
      bytes: 1.2e9,
      total: 6.5e9,
      files_done: 2,
      files: 6,
      cached_bytes: 0,
      bytes_per_second: 4.5e7,
      ...figures,
    },
  });

const props = { status: 'running' as const, percent: 0, points: [], run: null };

describe('RunProgress: the base model download', () => {
  it('a download under way: its own bar with bytes, the file and the speed; the training bar stays at 0', () => {
    render(<RunProgress {...props} busy lines={['loading org/tiny', download({})]} />);
    const bar = screen.getByRole('progressbar', { name: 'Base model download' });
    expect(bar).toHaveAttribute(
      'aria-valuetext',
      expect.stringMatching(/^Downloading the base model: 1\.\d+GB of 6\.\d+GB$/),
    );
    expect(Number(bar.getAttribute('aria-valuenow'))).toBeCloseTo(18.46, 1);
    expect(
      screen.getByText(/model\.safetensors: .* \(file 3 of 6\) · 42\.92MB\/s/),
    ).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Training progress' })).toHaveAttribute(
      'aria-valuenow',
      '0',
    );
  });

  it('gone once training steps begin, or every file is done, or the run is over', () => {
    const { rerender } = render(
      <RunProgress {...props} busy lines={[download({}), 'step 0/120']} />,
    );
    expect(screen.queryByRole('progressbar', { name: 'Base model download' })).toBeNull();
    rerender(<RunProgress {...props} busy lines={[download({ files_done: 6, bytes: 6.5e9 })]} />);
    expect(screen.queryByRole('progressbar', { name: 'Base model download' })).toBeNull();
    rerender(<RunProgress {...props} busy={false} lines={[download({})]} />);
    expect(screen.queryByRole('progressbar', { name: 'Base model download' })).toBeNull();
  });
});
