import { useEffect, useRef, useState } from 'react';

/** How long "Copied" shows after a copy. */
export const COPIED_MS = 1500;

/**
 * Copies text to the clipboard; `copied` is true for COPIED_MS after a copy that worked, and
 * `failed` names why one did not (a page without clipboard access).
 */
export function useCopy() {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async (text: string) => {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    timer.current = setTimeout(() => setState('idle'), COPIED_MS);
  };
  return { copy, copied: state === 'copied', failed: state === 'failed' };
}
