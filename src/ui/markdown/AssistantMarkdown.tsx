import { useEffect, useLayoutEffect, useRef, type MouseEvent } from 'react';
import {
  createStreamingRenderer,
  warmUpRenderer,
  type StreamingRenderer,
} from './streaming-renderer';
import { afterNextFrame, cancelFrame, nextFrame } from './frames';
import { codeOfCopyButton, watchCodeBlocks } from './code-copy';
import { useCopy } from '../chat/use-copy';
import './markdown.css';

// This module is loaded lazily (when a model is ready): warm the renderer and KaTeX up when idle.
if (typeof window !== 'undefined' && typeof window.requestIdleCallback === 'function')
  window.requestIdleCallback(() => void warmUpRenderer(), { timeout: 2000 });

/**
 * An assistant message as sanitized Markdown with math. The div is owned by a streaming renderer
 * (React never sets its children): while streaming, updates are coalesced to one per animation
 * frame and each re-renders only the open block; when streaming ends the final text renders, at
 * once when short, otherwise in slices, one after each frame (the content grows as they land;
 * unmounting or a new text cancels them).
 */
export function AssistantMarkdown({ content, streaming }: { content: string; streaming: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const renderer = useRef<StreamingRenderer | null>(null);
  const frame = useRef<number | null>(null);
  const pending = useRef('');

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = createStreamingRenderer(el, { schedule: afterNextFrame });
    renderer.current = r;
    return () => {
      if (frame.current !== null) cancelFrame(frame.current);
      frame.current = null;
      r.dispose();
      renderer.current = null;
    };
  }, []);

  useLayoutEffect(() => {
    const r = renderer.current;
    if (!r) return;
    if (!streaming) {
      if (frame.current !== null) cancelFrame(frame.current);
      frame.current = null;
      r.finish(content);
      return;
    }
    pending.current = content;
    frame.current ??= nextFrame(() => {
      frame.current = null;
      renderer.current?.update(pending.current);
    });
  }, [content, streaming]);

  // Code blocks get their Copy buttons once the message is finished (never while it streams, so a
  // streamed update does no extra work).
  useEffect(() => {
    const el = ref.current;
    if (!el || streaming) return;
    return watchCodeBlocks(el);
  }, [streaming]);

  const { copy, copied, failed } = useCopy();
  const onClick = (e: MouseEvent) => {
    const code = codeOfCopyButton(e.target);
    if (code !== null) void copy(code);
  };

  return (
    <>
      {/* The div's children are the renderer's; the click reaches it from the code's button. */}
      <div className="markdown" ref={ref} onClick={onClick} />
      <span className="sr-only" aria-live="polite">
        {copied ? 'Code copied' : failed ? 'Copy failed: no clipboard access' : ''}
      </span>
    </>
  );
}
