/**
 * Test/benchmark page for the assistant renderer (served by Vite's dev server, never built into
 * the app): exposes the streaming renderer and a naive full re-parse on `window`.
 */
import { createStreamingRenderer, warmUpRenderer } from '../../src/ui/markdown/streaming-renderer';
import { renderMarkdown } from '../../src/ui/markdown/markdown';
import { loadKatex, typeset } from '../../src/ui/markdown/math';
import '../../src/ui/markdown/markdown.css';

const out = document.getElementById('out') as HTMLElement;

declare global {
  interface Window {
    harness: typeof harness;
  }
}

const harness = {
  loadKatex: () => loadKatex().then(() => true),
  /** What AssistantMarkdown does when its chunk loads (on idle). */
  warmUp: () => warmUpRenderer().then(() => true),
  /** Renders `text` streamed in chunks of `chunk` characters, then finished; returns the HTML. */
  show(text: string, chunk = 7): string {
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    for (let i = chunk; i < text.length; i += chunk) r.update(text.slice(0, i));
    r.finish(text);
    return out.innerHTML;
  },
  /** Renders whole, then streamed in chunks; returns the final HTML of both. */
  renderBoth(text: string, chunk: number): { whole: string; streamed: string } {
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    r.finish(text);
    const whole = out.innerHTML;
    r.dispose();
    const s = createStreamingRenderer(out);
    for (let i = chunk; i < text.length + chunk; i += chunk) s.update(text.slice(0, i));
    s.finish(text);
    return { whole, streamed: out.innerHTML };
  },
  /** Renders `text` whole (one `finish`, as for a finished message); returns the time (ms). */
  wholeTimed(text: string): number {
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    const t0 = performance.now();
    r.finish(text);
    void out.offsetHeight;
    const time = performance.now() - t0;
    r.dispose();
    return time;
  },
  /**
   * Streams `tokens` one per update; returns the time of each update from index `from` on (ms,
   * including layout). The naive mode starts from the prefix directly (its cost depends only on
   * the text length), the incremental one streams every token.
   */
  streamTimed(
    tokens: string[],
    mode: 'incremental' | 'naive' | 'naive+math',
    from = 0,
    layout = true,
  ): number[] {
    const naive = mode !== 'incremental';
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    const times: number[] = [];
    let text = naive ? tokens.slice(0, from).join('') : '';
    for (let i = naive ? from : 0; i < tokens.length; i++) {
      const token = tokens[i] ?? '';
      text += token;
      const t0 = performance.now();
      if (naive) {
        out.innerHTML = renderMarkdown(text);
        if (mode === 'naive+math') typeset(out);
      } else {
        r.update(text);
      }
      if (layout) void out.offsetHeight; // force layout: the cost the user pays
      if (i >= from) times.push(performance.now() - t0);
    }
    r.finish(text);
    return times;
  },
};

window.harness = harness;
