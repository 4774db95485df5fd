import { useEffect, useLayoutEffect, useRef, type MouseEvent } from 'react';
import {
  createStreamingRenderer,
  warmUpRenderer,
  type StreamingRenderer,
} from './streaming-renderer';
import { afterNextFrame } from './frames';
import { codeOfCopyButton, watchCodeBlocks } from './code-copy';
import { useCopy } from '../chat/use-copy';
import './markdown.css';

// This module is loaded lazily (when a model is ready): warm the renderer and KaTeX up when idle.
if (typeof window !== 'undefined' && typeof window.requestIdleCallback === 'function')
  window.requestIdleCallback(() => void warmUpRenderer(), { timeout: 2000 });

/**
 * An assistant message as sanitized Markdown with math. The div is owned by a streaming renderer
 * (React never sets its children): while streaming, each update re-renders only the open block, in
 * the same commit as the rest of the chat's update, so the browser lays out and paints once per
 * update (the worker actor already delivers at most one update per animation frame; a second frame
 * here cost a second paint per update, which on 2 cores is taken from the model's decode). When
 * streaming ends the final text renders, at once when short, otherwise in slices, one after each
 * frame (the content grows as they land; unmounting or a new text cancels them).
 */
export function AssistantMarkdown({ content, streaming }: { content: string; streaming: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const renderer = useRef<StreamingRenderer | null>(null);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = createStreamingRenderer(el, { schedule: afterNextFrame });
    renderer.current = r;
    return () => {
      r.dispose();
      renderer.current = null;
    };
  }, []);

  useLayoutEffect(() => {
    const r = renderer.current;
    if (!r) return;
    if (streaming) r.update(content);
    else r.finish(content);
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
