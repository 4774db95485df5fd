const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'] as const;

/** Size in 1024-based units with two decimals (PRODUCT.md §2): 1536 → "1.50kB". */
export function formatBytes(size: number): string {
  if (!Number.isFinite(size) || size < 0) return '';
  let i = 0;
  let value = size;
  while (value >= 1024 && i < UNITS.length - 1) {
    value /= 1024;
    i += 1;
  }
  return `${value.toFixed(2)}${UNITS[i]}`;
}
