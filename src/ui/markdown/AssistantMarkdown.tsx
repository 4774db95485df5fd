import { useLayoutEffect, useRef } from 'react';
import {
  createStreamingRenderer,
  warmUpRenderer,
  type StreamingRenderer,
} from './streaming-renderer';
import { afterNextFrame, cancelFrame, nextFrame } from './frames';
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

  return <div className="markdown" ref={ref} />;
}
