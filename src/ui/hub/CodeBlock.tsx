import { useEffect, useRef, useState } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

/** A snippet with a copy button (navigator.clipboard); the outcome is announced politely. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = async () => {
    clearTimeout(timer.current);
    try {
      // Undefined outside secure contexts (plain http on a LAN address).
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(code);
      setState('copied');
    } catch {
      setState('failed');
    }
    timer.current = setTimeout(() => setState('idle'), 2500);
  };

  return (
    <figure className="hub-code">
      <figcaption>
        <span className="hub-code-label">{label}</span>
        <button
          type="button"
          className="hub-copy"
          aria-label={`Copy ${label}`}
          onClick={() => void copy()}
        >
          {state === 'copied' ? 'Copied' : 'Copy'}
        </button>
        <span role="status" className="hub-copy-status">
          {state === 'copied'
            ? 'Copied to the clipboard.'
            : state === 'failed'
              ? 'Copy failed: the clipboard is not available here; select the text instead.'
              : ''}
        </span>
      </figcaption>
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
