import { useLayoutEffect, useRef } from 'react';
import { createStreamingRenderer, type StreamingRenderer } from './streaming-renderer';
import './markdown.css';

/**
 * An assistant message as sanitized Markdown with math. Updates arrive at most once per animation
 * frame (the worker actor coalesces tokens), and each one re-renders only the open block.
 */
export function AssistantMarkdown({ content, streaming }: { content: string; streaming: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const renderer = useRef<StreamingRenderer | null>(null);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    renderer.current ??= createStreamingRenderer(el);
    if (streaming) renderer.current.update(content);
    else renderer.current.finish(content);
  }, [content, streaming]);

  useLayoutEffect(
    () => () => {
      renderer.current?.dispose();
      renderer.current = null;
    },
    [],
  );

  return <div className="markdown" ref={ref} />;
}
