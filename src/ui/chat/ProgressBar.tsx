import { formatProgressLabel } from '../format';

export interface ProgressBarProps {
  file: string;
  progress: number;
  total?: number | undefined;
}

/** One bar per file: label, percentage with two decimals, size in 1024-based units. */
export function ProgressBar({ file, progress, total }: ProgressBarProps) {
  const value = Math.min(100, Math.max(0, Number.isFinite(progress) ? progress : 0));
  const label = formatProgressLabel(file, value, total);
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={file}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Number(value.toFixed(2))}
      aria-valuetext={label}
    >
      <div className="progress-fill" style={{ width: `${value}%` }} />
      <span className="progress-label">{label}</span>
    </div>
  );
}
