/**
 * Test/benchmark page for the assistant renderer (served by Vite's dev server, never built into
 * the app): exposes the streaming renderer and a naive full re-parse on `window`.
 */
import { createStreamingRenderer, warmUpRenderer } from '../../src/ui/markdown/streaming-renderer';
import { renderMarkdown } from '../../src/ui/markdown/markdown';
import { loadKatex, typeset } from '../../src/ui/markdown/math';
import { afterNextFrame, inOwnTask } from '../../src/ui/markdown/frames';
import { blocksHtml, normalize } from './shown-html';
import '../../src/ui/markdown/markdown.css';

const out = document.getElementById('out') as HTMLElement;

declare global {
  interface Window {
    harness: typeof harness;
  }
}

/**
 * Finished chunks have `content-visibility: auto`: Chromium skips a new chunk's layout in a
 * forced layout and does it in the next frame. The timings force them visible, so all the layout
 * an update causes is counted (an upper bound: chunks off screen are laid out too).
 */
const layoutAll = document.createElement('style');
layoutAll.textContent = '.markdown .md-chunk { content-visibility: visible !important; }';
document.head.append(layoutAll);

const blocks = () => blocksHtml(out);

/**
 * The renderer's later slices, queued here and run by the timing functions one by one, each as a
 * task of its own (what `requestAnimationFrame` does in the app), so each is timed alone.
 */
const slices: (() => void)[] = [];
const manual = (task: () => void) => {
  slices.push(task);
  return () => {
    const at = slices.indexOf(task);
    if (at >= 0) slices.splice(at, 1);
  };
};

/**
 * A task boundary: what the browser runs between two of the app's tasks (a garbage collection's
 * last step, say) runs there, not inside the next timed one, as between the worker's messages and
 * between frames in the app.
 */
const nextTask = () => new Promise<void>((resolve) => inOwnTask(resolve));

/** Runs the queued slices, each a task of its own; returns each one's time (ms, with layout). */
async function runSlices(): Promise<number[]> {
  const times: number[] = [];
  for (let task = slices.shift(); task; task = slices.shift()) {
    await nextTask();
    const t0 = performance.now();
    task();
    void out.offsetHeight;
    times.push(performance.now() - t0);
  }
  return times;
}

/** A whole render of `text` by marked + DOMPurify + KaTeX, as comparable HTML. */
function referenceHtml(text: string): string {
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(text);
  typeset(el);
  return normalize(el.innerHTML);
}

/** A whole render of a text beside `out` (same width), to compare the streamed layout with. */
const reference = document.createElement('div');
reference.className = 'markdown';
reference.style.width = out.style.width;

function renderWhole(text: string): HTMLElement {
  if (!reference.isConnected) document.body.append(reference);
  reference.innerHTML = renderMarkdown(text);
  typeset(reference);
  return reference;
}

/** The open list's height against the whole render's (null if equal, or no list is open). */
function listMismatch(text: string): string | null {
  const list = out.querySelector('.md-open')?.firstElementChild;
  if (list?.tagName !== 'UL' && list?.tagName !== 'OL') return null;
  const want = [...renderWhole(text).children]
    .filter((c) => c.tagName === list.tagName)
    .at(-1)
    ?.getBoundingClientRect().height;
  const got = list.getBoundingClientRect().height;
  return want === got ? null : `list ${got} px tall, whole render ${want} px`;
}

const harness = {
  /** KaTeX and the fonts its warm-up asked for (a line cut before they load keeps their breaks). */
  loadKatex: () =>
    loadKatex()
      .then(() => document.fonts.ready)
      .then(() => true),
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
  /**
   * Renders `text` whole (one `finish`, as for a finished message) in slices, each a task of its
   * own; returns the renderer's time (ms: the slices' sum, each with its layout), the longest
   * slice (the first, in `finish`, included) and the count.
   */
  async wholeTimed(
    text: string,
  ): Promise<{ total: number; longest: number; slices: number; times: number[] }> {
    out.replaceChildren();
    const r = createStreamingRenderer(out, { schedule: manual });
    const t0 = performance.now();
    r.finish(text);
    void out.offsetHeight;
    const times = [performance.now() - t0, ...(await runSlices())];
    r.dispose();
    return {
      total: times.reduce((sum, t) => sum + t, 0),
      longest: Math.max(...times),
      slices: times.length,
      times,
    };
  },
  /**
   * Renders `text` in animation frames as the app does: whole (a finished message shown at once),
   * or, given `streamed` (tokens of the text's start), after streaming them one per update, to its
   * end (a long block's end then settles in slices). Watches long tasks (over 50 ms,
   * PerformanceObserver 'longtask') from the end of the stream on; returns their durations, the
   * slices' count, whether the final DOM equals the reference whole render (marked + DOMPurify +
   * KaTeX), the most paragraph line segments (`md-seg`) seen after a slice, and the container's
   * heights after each slice but the first.
   */
  async inFrames(
    text: string,
    streamed: string[] = [],
  ): Promise<{
    longTasks: number[];
    frames: number;
    same: boolean;
    segments: number;
    heights: number[];
    /** Each long task's start, and each slice's start and time (ms), to tell which is which. */
    starts: number[];
    slices: [number, number][];
  }> {
    out.replaceChildren();
    const slices: [number, number][] = [];
    const heights: number[] = [];
    let segments = 0;
    const timed = (task: () => void) =>
      afterNextFrame(() => {
        const t0 = performance.now();
        task();
        slices.push([t0, performance.now() - t0]);
        segments = Math.max(segments, out.querySelectorAll('.md-seg').length);
        if (slices.length > 1) heights.push(out.offsetHeight);
      });
    const r = createStreamingRenderer(out, { schedule: timed });
    let prefix = '';
    for (const token of streamed) {
      prefix += token;
      await nextTask(); // each update a task of its own, as each worker message is
      r.update(prefix);
      void out.offsetHeight; // laid out between updates, as frames would
    }
    // Painted, as a streamed message is by its end; long tasks are counted from here on.
    for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
    const longTasks: number[] = [];
    const starts: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        longTasks.push(entry.duration);
        starts.push(entry.startTime);
      }
    });
    observer.observe({ type: 'longtask' });
    // In a task of its own, as the app's (a React effect, after the worker's last message).
    await new Promise((resolve) => afterNextFrame(() => resolve(null)));
    r.finish(text);
    let count = 1;
    while (r.pending) {
      await new Promise(requestAnimationFrame);
      count++;
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // the last long task reported
    for (const entry of observer.takeRecords()) {
      longTasks.push(entry.duration);
      starts.push(entry.startTime);
    }
    observer.disconnect();
    const same = blocks() === referenceHtml(text);
    r.dispose();
    return { longTasks, frames: count, same, segments, heights, starts, slices };
  },
  /**
   * The browser's own cost of the DOM a render ends with, not the renderer's: the median of 5 hit
   * tests at the viewport's centre (as Chromium runs at a frame's commit, and for a mouse move),
   * list-based (`elementsFromPoint`) so no cache answers them. After the renderer's whole render,
   * and after the plain library's (marked + DOMPurify + KaTeX into `innerHTML`) of the same text.
   */
  async hitTest(text: string): Promise<{ ours: number; plain: number }> {
    const median = () => {
      void out.offsetHeight;
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        document.elementsFromPoint(innerWidth / 2, innerHeight / 2);
        times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b)[2] ?? 0;
    };
    out.replaceChildren();
    const r = createStreamingRenderer(out, { schedule: manual });
    r.finish(text);
    await runSlices();
    const ours = median();
    r.dispose();
    out.innerHTML = renderMarkdown(text);
    typeset(out);
    const plain = median();
    out.replaceChildren();
    return { ours, plain };
  },
  /**
   * Streams `tokens` into the renderer while its container is hidden (`display: none`) from
   * token `from` to token `to`, shown before and after. Returns whether the list item being
   * written was sized (had a style) while hidden, the open list's height against a whole
   * render's after the container is shown and the next token arrives, and the final DOM's
   * equality with a whole render.
   */
  streamHidden(tokens: string[], from: number, to: number) {
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    let text = '';
    let styledWhileHidden = false;
    let shown: string | null = 'no list open when shown';
    tokens.forEach((token, i) => {
      out.style.display = i >= from && i < to ? 'none' : '';
      text += token;
      r.update(text);
      if (out.style.display === 'none' && out.querySelector('li[style]')) styledWhileHidden = true;
      if (i === to && out.querySelector('.md-open > :is(ul, ol)')) shown = listMismatch(text);
    });
    reference.remove();
    out.style.display = '';
    r.finish(text);
    const streamed = blocks();
    r.dispose();
    r.finish(text);
    return { styledWhileHidden, listMismatch: shown, same: streamed === blocks() };
  },
  /**
   * Streams `tokens` one per update, laid out after each as in the app, and checks every `every`
   * updates that the layout splitting of the open block (paragraph segments, table segments) shows
   * what a whole render shows: the open paragraph as tall as the whole render's last paragraph,
   * table cells in the header's columns. Returns the most segments seen, the mismatches and
   * whether the final DOM equals the whole render.
   */
  checkSegments(tokens: string[], every: number) {
    out.replaceChildren();
    const r = createStreamingRenderer(out);
    const mismatches: string[] = [];
    let segments = 0;
    let text = '';
    const columns = (tr: HTMLTableRowElement) =>
      [...tr.cells].map((c) => {
        const b = c.getBoundingClientRect();
        return `${b.left.toFixed(1)}-${b.right.toFixed(1)}`;
      });
    tokens.forEach((token, i) => {
      text += token;
      r.update(text);
      void out.offsetHeight;
      const open = out.querySelector('.md-open');
      segments = Math.max(
        segments,
        out.querySelectorAll('.md-seg').length +
          Math.max(0, out.querySelectorAll('.md-table-stream > table').length - 1),
      );
      if (i % every !== 0 || !open) return;
      const p = open.querySelector('p');
      if (p) {
        const want = [...renderWhole(text).querySelectorAll('p')]
          .at(-1)
          ?.getBoundingClientRect().height;
        const got = p.getBoundingClientRect().height;
        if (want !== got) mismatches.push(`paragraph ${got} px tall, whole render ${want} px`);
      }
      // The item being written is sized by the renderer (LiveItem): the list as tall as whole.
      const list = listMismatch(text);
      if (list) mismatches.push(list);
      const head = open.querySelector('thead tr');
      if (head instanceof HTMLTableRowElement) {
        const want = columns(head).join();
        for (const tr of open.querySelectorAll('tbody tr'))
          if (tr instanceof HTMLTableRowElement && tr.cells.length === head.cells.length) {
            const got = columns(tr).join();
            if (got !== want) mismatches.push(`row columns ${got}, header ${want}`);
          }
      }
    });
    r.finish(text);
    const streamed = blocks();
    r.dispose();
    r.finish(text);
    const whole = blocks();
    reference.remove();
    let at = 0;
    while (at < whole.length && streamed[at] === whole[at]) at++;
    const difference =
      streamed === whole
        ? ''
        : `${streamed.slice(Math.max(0, at - 80), at + 80)}\n  whole:\n${whole.slice(Math.max(0, at - 80), at + 80)}`;
    return { segments, mismatches: [...new Set(mismatches)].slice(0, 5), difference };
  },
  /**
   * Streams `tokens` one per update; returns the time of each update from index `from` on (ms,
   * including layout), and of each slice the renderer queued (a block's end), run after the update
   * that queued it. The naive mode starts from the prefix directly (its cost depends only on the
   * text length), the incremental one streams every token.
   */
  async streamTimed(
    tokens: string[],
    mode: 'incremental' | 'naive' | 'naive+math',
    from = 0,
    layout = true,
  ): Promise<{ times: number[]; slices: number[] }> {
    const naive = mode !== 'incremental';
    out.replaceChildren();
    const r = createStreamingRenderer(out, { schedule: manual });
    const times: number[] = [];
    const later: number[] = [];
    let text = naive ? tokens.slice(0, from).join('') : '';
    for (let i = naive ? from : 0; i < tokens.length; i++) {
      const token = tokens[i] ?? '';
      text += token;
      await nextTask(); // each update a task of its own, as each worker message is
      const t0 = performance.now();
      if (naive) {
        out.innerHTML = renderMarkdown(text);
        if (mode === 'naive+math') typeset(out);
      } else {
        r.update(text);
      }
      if (layout) void out.offsetHeight; // force layout: the cost the user pays
      if (i >= from) times.push(performance.now() - t0);
      later.push(...(await runSlices()));
    }
    await nextTask();
    const t0 = performance.now();
    r.finish(text);
    void out.offsetHeight;
    later.push(performance.now() - t0, ...(await runSlices()));
    r.dispose();
    return { times, slices: later };
  },
};

window.harness = harness;
