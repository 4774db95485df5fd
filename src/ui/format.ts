/** Pure formatting helpers for the UI (sizes, speeds, percentages). */

import { formatBytes } from '../shared/format-bytes';

export { formatBytes };

/** Percentage with two decimals: 12.3456 → "12.35%". */
export function formatPercent(progress: number): string {
  const value = Number.isFinite(progress) ? progress : 0;
  return `${value.toFixed(2)}%`;
}

/** Progress bar label: "file (12.35%) of 1.50MB" — the size only when total is numeric. */
export function formatProgressLabel(file: string, progress: number, total?: number): string {
  const size =
    typeof total === 'number' && Number.isFinite(total) ? ` of ${formatBytes(total)}` : '';
  return `${file} (${formatPercent(progress)}${size})`;
}

/** Tokens per second with two decimals. */
export function formatTps(tps: number): string {
  return `${tps.toFixed(2)} tokens/second`;
}

/** PRODUCT.md §2: auto-scroll only if the user is within 120 px of the bottom. */
export const AUTO_SCROLL_THRESHOLD_PX = 120;

export function isNearBottom(
  el: { scrollTop: number; scrollHeight: number; clientHeight: number },
  threshold = AUTO_SCROLL_THRESHOLD_PX,
): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= threshold;
}

/** PRODUCT.md §2: the input grows from 24 to 200 px. */
export const INPUT_MIN_HEIGHT_PX = 24;
export const INPUT_MAX_HEIGHT_PX = 200;

export function clampInputHeight(scrollHeight: number): number {
  return Math.min(Math.max(scrollHeight, INPUT_MIN_HEIGHT_PX), INPUT_MAX_HEIGHT_PX);
}
