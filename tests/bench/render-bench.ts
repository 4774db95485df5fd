/**
 * npm run bench:render [-- --smoke] — streams answers into the assistant renderer in Chromium, one
 * token per update, each update a task of its own as each worker message is, and prints the
 * main-thread time per update (median, p99; update + forced layout) and the longest task (an
 * update, or a slice of a block's end), then renders the final text whole (as when a saved
 * conversation opens) and prints the renderer's time (its slices' sum), its longest slice and the
 * slice count; then, in animation frames as the app schedules them, the longest main-thread task
 * (PerformanceObserver 'longtask': script, layout and paint) of the whole render and of the end of
 * the streamed answer (its last block arriving, a long block's end settling in slices); next to the
 * goals and the naive baseline (marked + DOMPurify + innerHTML + KaTeX of the whole text per
 * update). Last, the browser's own cost of the final DOM: a hit test at the viewport's centre (what
 * Chromium runs at a frame's commit about once a second, and for each mouse move), after the
 * renderer's whole render and after the plain library's; not a goal.
 * Cases: a mixed 4,000-token answer, a 500 × 10 table, 2,000 inline formulas, a 200-deep nested
 * list, a 300-line code fence. `--smoke`: tiny sizes, a few seconds, no goals checked.
 * `--case WORD`: only the cases whose name holds WORD (e.g. `--case table`), as the full run takes
 * many minutes on a loaded machine.
 */
import { openRenderHarness } from '../render/server';
import {
  answer,
  codeFenceText,
  formulasText,
  nestedListText,
  tableText,
  tokenize,
} from './render-cases';

const smoke = process.argv.includes('--smoke');
const only = process.argv[process.argv.indexOf('--case') + 1];
const filter = process.argv.includes('--case') && only ? only : '';
const GOAL_MEDIAN = 1;
const GOAL_P99 = 16;
/** The longest main-thread task, streamed (an update or a later slice) and rendered whole. */
const GOAL_TASK = 100;

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { median: at(0.5), p99: at(0.99), max: s.at(-1) ?? 0 };
}

const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(0)} ms`.padStart(9);

function cases(): [string, string[]][] {
  return allCases().filter(([name]) => name.includes(filter));
}

function allCases(): [string, string[]][] {
  return smoke
    ? [
        ['200-token answer', answer(200)],
        ['20 x 4 table', tokenize(tableText(20, 4))],
        ['50 inline formulas', tokenize(formulasText(50))],
        ['10-deep nested list', tokenize(nestedListText(10))],
        ['20-line code fence', tokenize(codeFenceText(20))],
      ]
    : [
        ['4,000-token answer', answer(4000)],
        ['500 x 10 table', tokenize(tableText(500, 10))],
        ['2,000 inline formulas', tokenize(formulasText(2000))],
        ['200-deep nested list', tokenize(nestedListText(200))],
        ['300-line code fence', tokenize(codeFenceText(300))],
      ];
}

async function main() {
  const { browser, close } = await openRenderHarness();
  let failed = 0;
  try {
    // As the app does once the markdown chunk has loaded (on idle, before any message).
    await browser.page.evaluate(() => window.harness.warmUp());
    const naiveUpdates = smoke ? 5 : 30;
    console.log(
      `Streaming into the renderer in Chromium, one token per update, main-thread time per update (update + forced layout)${smoke ? ' [smoke: tiny sizes, goals not checked]' : ''}:`,
    );
    console.log(
      `  ${'case'.padEnd(24)} ${'updates'.padStart(7)}  ${'median'.padStart(9)}  ${'p99'.padStart(9)}  ${'longest'.padStart(9)}  ${'whole'.padStart(9)}  ${'longest'.padStart(9)} ${'slices'.padStart(6)}  ${'frames:wh'.padStart(9)}  ${'frames:end'.padStart(9)}  ${'hit test'.padStart(9)} ${'(plain)'.padStart(9)}   goals (median ≤ ${GOAL_MEDIAN} ms, p99 ≤ ${GOAL_P99} ms, longest task ≤ ${GOAL_TASK} ms)  naive median (last ${naiveUpdates} updates)`,
    );
    for (const [name, tokens] of cases()) {
      const streamed = await browser.page.evaluate(
        ([t]) => window.harness.streamTimed(t ?? [], 'incremental'),
        [tokens],
      );
      const whole = await browser.page.evaluate(
        ([t]) => window.harness.wholeTimed((t ?? []).join('')),
        [tokens],
      );
      const text = tokens.join('');
      const lastBlock = text.lastIndexOf('\n\n');
      const framesWhole = await browser.page.evaluate(
        ([t]) => window.harness.inFrames(t ?? ''),
        [text],
      );
      const framesEnd = await browser.page.evaluate(
        ([t, start]) => window.harness.inFrames(t, start),
        [text, tokenize(text.slice(0, Math.max(0, lastBlock)))] as const,
      );
      const longestTask = (r: { longTasks: number[] }) => Math.max(0, ...r.longTasks);
      /** A long task is one over 50 ms: none is shown as such. */
      const task = (x: number) => (x > 0 ? ms(x) : '< 50 ms'.padStart(9));
      const naive = await browser.page.evaluate(
        ([t, from]) => window.harness.streamTimed(t ?? [], 'naive+math', from),
        [tokens, Math.max(0, tokens.length - naiveUpdates)] as const,
      );
      const hit = await browser.page.evaluate(([t]) => window.harness.hitTest(t ?? ''), [text]);
      const { median, p99, max } = stats(streamed.times);
      const longest = Math.max(max, ...streamed.slices);
      const ok =
        median <= GOAL_MEDIAN &&
        p99 <= GOAL_P99 &&
        longest <= GOAL_TASK &&
        whole.longest <= GOAL_TASK &&
        longestTask(framesWhole) <= GOAL_TASK &&
        longestTask(framesEnd) <= GOAL_TASK;
      if (!ok) failed++;
      console.log(
        `  ${name.padEnd(24)} ${String(streamed.times.length).padStart(7)}  ${ms(median)}  ${ms(p99)}  ${ms(longest)}  ${ms(whole.total)}  ${ms(whole.longest)} ${String(whole.slices).padStart(6)}  ${task(longestTask(framesWhole))}  ${task(longestTask(framesEnd))}  ${ms(hit.ours)} ${`(${ms(hit.plain).trim()})`.padStart(9)}   ${(ok ? 'met' : 'NOT met').padEnd(62)}  ${ms(stats(naive.times).median)}`,
      );
    }
    console.log(
      smoke
        ? '  smoke run: figures only'
        : `  goals met in ${cases().length - failed} of ${cases().length} cases`,
    );
  } finally {
    await close();
  }
}

void main();
