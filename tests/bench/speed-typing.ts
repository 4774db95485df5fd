/**
 * `npm run bench:speed -- --typing`: the main thread while the user types into the chat, in the
 * built app with a model loaded (the usage line under the input counts the conversation and the
 * draft in the worker, a debounce after the last key). Traced with Chrome's tracing (the page's
 * main thread's tasks, every one, not only the Long Tasks API's ≥ 50 ms ones): a message of
 * `TYPED_CHARS` characters typed key by key, then one of `PASTED_CHARS` inserted at once as a
 * paste is, each until the usage line shows the new count; then the same into a plain textarea
 * beside it. Prints the longest task, the 99th percentile and the tasks over 16 ms (one frame at
 * 60 Hz), in CPU time and in wall time, and what the longest task spent its time on.
 */
import { writeFileSync } from 'node:fs';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { trace, type TraceEvent } from './speed-profile';

export const TYPED_CHARS = 2_000;
export const PASTED_CHARS = 20_000;
/** A task longer than one frame at 60 Hz delays the next paint. */
const FRAME_MS = 16;
const CATEGORIES = ['toplevel', 'devtools.timeline', 'blink'];

const SENTENCE =
  'The lighthouse keeper wrote down the weather, the ships and the state of the lamp every evening. ';

/**
 * `n` characters of prose; with `breaks`, a line break now and then, as a long message has (typed
 * key by key, a line break would be Enter, which sends).
 */
function prose(n: number, breaks: boolean): string {
  let text = '';
  for (let i = 0; text.length < n; i++)
    text += breaks && i % 6 === 5 ? `${SENTENCE.trim()}\n` : SENTENCE;
  return text.slice(0, n);
}

interface Task {
  ts: number;
  /** Wall time. */
  ms: number;
  /** The thread's CPU time (wall time less the time other processes had the core). */
  cpu: number;
}

/** The page's main-thread tasks (the renderer's main thread with the most tasks). */
function mainThreadTasks(events: TraceEvent[]): { tasks: Task[]; key: string } {
  const mains = new Set<string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      mains.add(`${e.pid}:${e.tid}`);
  const byThread = new Map<string, Task[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key) || e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask') continue;
    const list = byThread.get(key) ?? [];
    byThread.set(key, list);
    list.push({
      ts: e.ts,
      ms: (e.dur ?? 0) / 1000,
      cpu: (e.tdur ?? e.dur ?? 0) / 1000,
    });
  }
  const [key, tasks] = [...byThread].sort((a, b) => b[1].length - a[1].length)[0] ?? ['', []];
  return { tasks, key };
}

/** The slowest events inside `task` on thread `key`, by name, summed. */
function insideTask(events: TraceEvent[], key: string, task: Task): string {
  const end = task.ts + task.ms * 1000;
  const sums = new Map<string, { wall: number; cpu: number }>();
  for (const e of events) {
    if (`${e.pid}:${e.tid}` !== key || e.ph !== 'X' || !e.dur) continue;
    if (e.ts < task.ts || e.ts >= end || e.name === 'ThreadControllerImpl::RunTask') continue;
    const sum = sums.get(e.name) ?? { wall: 0, cpu: 0 };
    sums.set(e.name, {
      wall: sum.wall + e.dur / 1000,
      cpu: sum.cpu + (e.tdur ?? e.dur) / 1000,
    });
  }
  const inner = [...sums]
    .sort((a, b) => b[1].cpu - a[1].cpu)
    .slice(0, 6)
    .map(([name, t]) => `${name} ${t.cpu.toFixed(1)} (${t.wall.toFixed(1)}) ms`)
    .join(', ');
  return `${task.cpu.toFixed(1)} ms CPU (${task.ms.toFixed(1)} ms wall); inside, CPU (wall), nested ones counted in each: ${inner}`;
}

const usageText = (page: Page) => page.locator('.context-count').textContent();

/**
 * Runs `input` traced; in the app (`counted`), until the usage line has changed and stayed for
 * the debounce and more.
 */
async function traced(
  context: BrowserContext,
  page: Page,
  label: string,
  counted: boolean,
  input: () => Promise<void>,
): Promise<void> {
  const before = await usageText(page);
  const { events, ms } = await trace(
    context,
    page,
    async () => {
      await input();
      if (counted)
        await page.waitForFunction(
          (prev) => document.querySelector('.context-count')?.textContent !== prev,
          before,
          { timeout: 60_000 },
        );
      // The debounced count of the last key, or a later answer after a count in flight.
      await page.waitForTimeout(1_000);
    },
    CATEGORIES,
  );
  if (process.env.SPEED_TRACE_FILE)
    writeFileSync(
      `${process.env.SPEED_TRACE_FILE}-typing-${label.replace(/\W+/g, '_')}.json`,
      JSON.stringify(events),
    );
  const { tasks, key } = mainThreadTasks(events);
  const figures = (of: (t: Task) => number) => {
    const sorted = tasks.map(of).sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
    const over = sorted.filter((x) => x > FRAME_MS).length;
    const longest = tasks.reduce<Task | undefined>(
      (a, t) => (a && of(a) >= of(t) ? a : t),
      undefined,
    );
    return {
      p99,
      over,
      longest,
      text: `longest ${(longest ? of(longest) : 0).toFixed(1).padStart(6)} ms, p99 ${p99.toFixed(2).padStart(6)} ms, over ${FRAME_MS} ms: ${String(over).padStart(3)}`,
    };
  };
  const wall = figures((t) => t.ms);
  const cpu = figures((t) => t.cpu);
  console.log(
    `  ${label.padEnd(34)} ${(ms / 1000).toFixed(1).padStart(5)} s, ${tasks.length} tasks   CPU time: ${cpu.text}   ${cpu.over === 0 ? 'MET' : 'NOT MET'}   wall time: ${wall.text}`,
  );
  if (cpu.longest) console.log(`    longest task (CPU): ${insideTask(events, key, cpu.longest)}`);
  if (wall.longest)
    console.log(`    longest task (wall): ${insideTask(events, key, wall.longest)}`);
  if (counted) console.log(`    usage line after: ${await usageText(page)}`);
}

/** Types, then pastes, into `box`; `counted`: the app's box, whose usage line follows. */
async function typeAndPaste(
  context: BrowserContext,
  page: Page,
  box: Locator,
  counted: boolean,
  side: string,
) {
  await box.fill('');
  await box.focus();
  await traced(
    context,
    page,
    `${side}: ${TYPED_CHARS.toLocaleString('en')} characters key by key`,
    counted,
    () => page.keyboard.type(prose(TYPED_CHARS, false)),
  );
  await box.fill('');
  await page.waitForTimeout(1_000);
  await traced(
    context,
    page,
    `${side}: a paste of ${PASTED_CHARS.toLocaleString('en')} characters`,
    counted,
    () => page.keyboard.insertText(prose(PASTED_CHARS, true)),
  );
  await box.fill('');
}

/**
 * The typing measurement on `page`, the app with a model loaded and the usage line shown: a
 * message typed key by key, then a paste, into the Message box; then the same into a plain
 * textarea of the same class put beside it, no handler on it: what the browser's own editing and
 * layout of the text take, the floor under the app's figure.
 */
export async function benchTyping(context: BrowserContext, page: Page): Promise<void> {
  console.log(
    `\nThe main thread while typing (goal: no task over ${FRAME_MS} ms of CPU time; wall time beside, which other processes on the cores lengthen):`,
  );
  await typeAndPaste(context, page, page.getByRole('textbox', { name: 'Message' }), true, 'app');
  await page.evaluate(() => {
    const plain = document.createElement('textarea');
    plain.className = 'chat-textarea';
    plain.setAttribute('aria-label', 'Plain textarea');
    document.querySelector('.chat-input')?.after(plain);
  });
  await typeAndPaste(
    context,
    page,
    page.getByRole('textbox', { name: 'Plain textarea' }),
    false,
    'plain',
  );
}
