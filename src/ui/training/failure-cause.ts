/**
 * The line that explains a failed training run, for the panel's summary: a recognised cause
 * (missing Python packages, CUDA out of memory, a missing file) or else the log's last error line,
 * so the reason is read first instead of sitting in the small log box.
 */

const RECOGNISED: { pattern: RegExp; lead?: string }[] = [
  { pattern: /Missing Python packages:/ },
  { pattern: /CUDA out of memory/i, lead: 'The GPU ran out of memory (CUDA out of memory). ' },
  { pattern: /No such file or directory|does not exist|FileNotFoundError/ },
];

const ERRORISH = /(^|\b)(error|exception|traceback|fatal|killed)\b|Error:|^E\s/i;

/** Strips the `error: ` prefix finetune.py puts on its own messages. */
function clean(line: string): string {
  return line.trim().replace(/^error:\s*/i, '');
}

/**
 * The cause of a failed run from its last log lines, or null when the log says nothing useful.
 * Recognised causes win over the last error line; a bare "Traceback (most recent call last):"
 * is never the answer (the exception comes after it).
 */
export function failureCause(lines: readonly string[]): string | null {
  for (const { pattern, lead } of RECOGNISED) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i] ?? '';
      if (pattern.test(line)) return `${lead ?? ''}${clean(line)}`;
    }
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim();
    if (!line || /^Traceback \(most recent call last\)/.test(line)) continue;
    if (ERRORISH.test(line)) return clean(line);
  }
  return null;
}
