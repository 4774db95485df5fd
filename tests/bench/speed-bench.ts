/**
 * npm run bench:speed — the app's streaming speed against a plain transformers.js page, each in a
 * Chromium of its own (SwiftShader WebGPU; as a user has the app, alone), same model, dtype, prompt (chat template),
 * greedy decoding and new-token count, runs alternated app/raw, for two models of different shapes:
 * the repo's tiny model (hand-built graph, hidden 64, 2 layers) and a wider, deeper one (hidden 128, 4 layers) exported by
 * the trainer's exporter (tests/bench/make_speed_model.py, made on the first run into a gitignored
 * folder). For each model it prints, app and raw, medians and spread of
 * - decode tokens/s: tokens after the first ÷ time after the first (src/shared/generation-stats.ts);
 * - submit → done tokens/s: the reply's tokens ÷ the wall time from pressing Enter (app; raw: the
 *   call, chat template included) to the reply finished (app: its "Generated N tokens" line
 *   painted), measured in the page, so prefill, streaming and rendering all count;
 * - CPU per token: the CPU time every Chromium process used during the reply (tests/bench/process-cpu.ts)
 *   ÷ its tokens, the work a reply costs whatever else the machine did; and, summed over the runs,
 *   by thread (the app's page thread, its worker, the compositor, the GPU process with
 *   SwiftShader's threads) beside the plain page's: where the app's extra goes;
 * the ratios app ÷ raw against the goal ≥ 0.95× (with the spread of each app run ÷ the raw run after
 * it), the app's time to first token for the first reply
 * after loading against later replies (goal ≤ 2×), and the machine's 1-minute load average
 * (os.loadavg) before and after each model's runs, so an idle run can be told from a loaded one.
 *
 *   npm run bench:speed                  9 runs each, 128 new tokens, both models
 *   npm run bench:speed -- --runs 5      fewer runs
 *   npm run bench:speed -- --model tiny  one model (tiny or wide)
 *   npm run bench:speed -- --smoke       1 run × 16 tokens, no goals judged
 *   npm run bench:speed -- --one-browser both pages as tabs of one Chromium: the raw page's
 *                                        model then shares the app's GPU process (SwiftShader),
 *                                        and the app's first frame after a reply can wait on it
 *   npm run bench:speed -- --profile     also trace one app reply and one raw reply (Chrome
 *                                        tracing, every thread of the page's process) and print
 *                                        where the time went (tests/bench/speed-profile.ts)
 *   npm run bench:speed -- --turns       also a conversation of 3 turns, --runs times a side: the app
 *                                        keeps its KV cache between turns, the plain page reads
 *                                        the conversation again (goal ≥ 1.00× on later turns)
 *   npm run bench:speed -- --turns --document   the same with a pasted text (about 800
 *                                        tokens) in the first turn and questions on it after:
 *                                        the case where the cache saves the most
 *   npm run bench:speed -- --typing      only the main thread while typing a long message and
 *                                        pasting a longer one, the tiny model loaded
 *                                        (tests/bench/speed-typing.ts)
 *
 * Needs `npm run build`, `npm run tiny-model` and `npm run trainer:setup` (for the second model).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ROOT,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  launch,
  serveDist,
  serveModels,
} from '../e2e/harness';
import { descendantCpuSeconds, threadCpuSeconds } from './process-cpu';
import { servePage } from './serve-page';
import { profileReply } from './speed-profile';
import { benchTyping } from './speed-typing';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const profile = args.includes('--profile');
const typing = args.includes('--typing');
const oneBrowser = args.includes('--one-browser');
/**
 * `--turns`: also a conversation of these turns, RUNS times on each side, where the app
 * keeps the KV cache between turns (src/worker/kv-cache.ts) and the plain page reads the whole
 * conversation again each turn: there the app does less work (goal ≥ 1.00× on later turns).
 */
const turns = args.includes('--turns');
/**
 * `--document`: the first turn pastes a text (about 800 prompt tokens for the tiny tokenizer)
 * and the later turns ask about it, as a person asks about a document they pasted.
 */
const documentTurns = args.includes('--document');
if (documentTurns && !turns) throw new Error('--document goes with --turns');
const DOCUMENT = Array.from(
  { length: 10 },
  (_, i) =>
    `Harbour ${i + 1} has a ${['blue', 'red', 'green', 'white'][i % 4]} gate, a ferry at ${(i % 12) + 1} o'clock and a keeper who lights the lamp ${i + 3} minutes after sunset.`,
).join(' ');
const TURN_PROMPTS: readonly string[] = documentTurns
  ? [
      `${DOCUMENT}\n\nWhich harbour lights its lamp last?`,
      'And which has the earliest ferry?',
      'Sum the list up in two sentences.',
    ]
  : ['Write a short story about a lighthouse keeper.', 'Go on with the story.', 'How does it end?'];
/** Short turns before the typing measurement, so the count holds a conversation. */
const TYPING_TURNS = 3;
const runsArg = Number(args[args.indexOf('--runs') + 1]);
const RUNS = smoke ? 1 : args.includes('--runs') && runsArg > 0 ? runsArg : 9;
const TOKENS = smoke ? 16 : 128;
const PROMPT = 'Write a short story about a lighthouse keeper.';

const WIDE_DIR = join(ROOT, 'tests', 'fixtures', 'generated', 'speed-model');
const MODELS = [
  { key: 'tiny', id: TINY_MODEL_ID, dir: TINY_MODEL_DIR, shape: 'hidden 64, 2 layers' },
  {
    key: 'wide',
    id: 'local/speed-llama-wide',
    dir: join(WIDE_DIR, 'web'),
    shape: 'hidden 128, 4 layers, fused operators',
  },
] as const;
type Model = (typeof MODELS)[number];
const only = args.includes('--model') ? args[args.indexOf('--model') + 1] : undefined;
if (only !== undefined && !MODELS.some((m) => m.key === only))
  throw new Error(`--model must be one of ${MODELS.map((m) => m.key).join(', ')}, not ${only}`);
const chosen = MODELS.filter((m) => only === undefined || m.key === only);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
const load1 = () => loadavg()[0] ?? NaN;

/** Serves the raw page and node_modules (read only) for its imports. */
function serveRaw() {
  return servePage('/raw.html', readFileSync(join(ROOT, 'tests', 'bench', 'speed-raw.html')));
}

/** The second model, exported once into the gitignored fixtures folder. */
function ensureWideModel() {
  if (existsSync(join(WIDE_DIR, 'web', 'config.json'))) return;
  console.log(`making the second model (tests/bench/make_speed_model.py → ${WIDE_DIR})`);
  execFileSync(
    join(ROOT, '.venv', 'bin', 'python'),
    [join(ROOT, 'tests', 'bench', 'make_speed_model.py'), WIDE_DIR],
    { stdio: 'inherit' },
  );
}

/** A reply's time in the model: its first token, then the rest at the decode rate. */
const modelSeconds = (ttft: number, decodeTps: number, tokens: number) =>
  ttft + (tokens - 1) / decodeTps;

const DETAIL =
  /Prefill: (\d+) prompt tokens(?: \((\d+) cached\))?, first token after (\d+\.\d+) s · Decode: (\d+\.\d+) tokens\/s/;

/** The app's detail line after a reply: prompt tokens, those from the cache, TTFT, decode rate. */
function parseDetail(detail: string) {
  const m = DETAIL.exec(detail);
  if (!m) throw new Error(`Unexpected speed detail: ${detail}`);
  const [, prompt, cached, ttft, tps] = m.map(Number);
  return { prompt: prompt ?? NaN, cached: cached || 0, ttft: ttft ?? NaN, tps: tps ?? NaN };
}

interface RawReply {
  numTokens: number;
  ttft: number | null;
  decodeTps: number | null;
  e2eSeconds: number;
}
type RawWindow = {
  rawReady?: boolean;
  rawLoad(): Promise<boolean>;
  rawGenerate(p: string, n: number): Promise<RawReply>;
  rawConversation(p: readonly string[], n: number): Promise<RawReply[]>;
};

/**
 * Sends the prompt in the app and resolves with the page's own clock: from the Enter key's
 * keydown to the frame after the finished reply's figures appeared, and the reply's token count.
 * The observer only queries one selector per mutation, so it adds next to nothing to the page.
 */
async function appReply(page: Page): Promise<{ tokens: number; seconds: number }> {
  type Timed = { speedDone?: Promise<{ tokens: number; seconds: number }> };
  await page.evaluate(() => {
    (window as Timed).speedDone = new Promise((resolve) => {
      let submitted = NaN;
      // Handlers inline: tsx names const functions with a helper the page does not have.
      window.addEventListener(
        'keydown',
        (e) => {
          if (e.key === 'Enter') submitted = performance.now();
        },
        { capture: true, once: true },
      );
      // In a conversation the last reply's figures are still shown when the next is sent: they
      // must go (the new reply started) before figures count.
      let previousGone = !document.querySelector('.speed-detail');
      const observer = new MutationObserver(() => {
        const figures = document.querySelector('.speed-detail')?.parentElement;
        if (!previousGone) {
          previousGone = !figures;
          return;
        }
        if (!figures) return;
        observer.disconnect();
        const tokens = Number(/Generated \+?(\d+) tokens in/.exec(figures.textContent ?? '')?.[1]);
        requestAnimationFrame(() =>
          resolve({ tokens, seconds: (performance.now() - submitted) / 1000 }),
        );
      });
      observer.observe(document.body, { childList: true, subtree: true });
    });
  });
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  return page.evaluate(() => {
    const done = (window as Timed).speedDone;
    if (!done) throw new Error('the reply timer was not set');
    return done;
  });
}

interface Figures {
  appTps: number[];
  rawTps: number[];
  appE2e: number[];
  rawE2e: number[];
  appTtft: number[];
  /** The raw page's time to first token (from the generate call, as the app's detail line). */
  rawTtft: number[];
  /** Seconds of each reply outside the model's own time (first token + decode): set-up and finish. */
  appOutside: number[];
  rawOutside: number[];
  /** CPU ms per generated token of the whole browser (every process the bench started). */
  appCpu: number[];
  rawCpu: number[];
  /** CPU seconds by "process type/thread" over the measured replies, and their tokens. */
  appThreads: Map<string, number>;
  rawThreads: Map<string, number>;
  appTokens: number;
  rawTokens: number;
  loadBefore: number;
  loadAfter: number;
}

/** Opens the app with `model` served from `modelsUrl` and loads it. */
async function loadInApp(
  page: Page,
  appUrl: string,
  modelsUrl: string,
  model: Model,
  maxTokens: number,
) {
  const host = encodeURIComponent(modelsUrl);
  await page.goto(`${appUrl}?modelHost=${host}&extraModel=${model.id}&maxTokens=${maxTokens}`);
  await page.getByRole('button', { name: /^Model:/ }).click();
  await page.getByRole('option', { name: model.id }).click();
  await page.getByRole('button', { name: 'Load model' }).click();
  await page.getByText('Ready!').waitFor({ timeout: 300_000 });
}

/**
 * `--typing`: the tiny model loaded, a conversation of `TYPING_TURNS` short turns, then the
 * typing measurement (tests/bench/speed-typing.ts).
 */
async function typingOnly(
  browser: Awaited<ReturnType<typeof launch>>,
  appUrl: string,
  modelsUrl: string,
) {
  const page = browser.page;
  await loadInApp(page, appUrl, modelsUrl, MODELS[0], 16);
  const box = page.getByRole('textbox', { name: 'Message' });
  for (let turn = 1; turn <= TYPING_TURNS; turn++) {
    await box.fill(`${PROMPT} Turn ${turn}.`);
    await box.press('Enter');
    await page.getByText(/Generated \d+ tokens in/).waitFor({ timeout: 300_000 });
  }
  const before = load1();
  await benchTyping(browser.context, page);
  console.log(`  1-min load average ${before.toFixed(2)} before, ${load1().toFixed(2)} after`);
}

async function benchModel(
  browser: Awaited<ReturnType<typeof launch>>,
  rawBrowser: Awaited<ReturnType<typeof launch>> | null,
  appUrl: string,
  rawUrl: string,
  modelsUrl: string,
  model: Model,
): Promise<void> {
  const appPage = browser.page;
  const rawContext = rawBrowser?.context ?? browser.context;
  const rawPage = await rawContext.newPage();
  const host = encodeURIComponent(modelsUrl);
  await rawPage.goto(`${rawUrl}raw.html?modelHost=${host}&model=${model.id}&dtype=fp32`);
  await loadInApp(appPage, appUrl, modelsUrl, model, TOKENS);
  await rawPage.waitForFunction(() => (window as unknown as RawWindow).rawReady);
  await rawPage.evaluate(() => (window as unknown as RawWindow).rawLoad());
  const rawGenerate = (n: number) =>
    rawPage.evaluate(([p, k]) => (window as unknown as RawWindow).rawGenerate(p, k), [
      PROMPT,
      n,
    ] as const);
  // The raw page's one untimed warm-up reply (the app warms up while loading).
  await rawGenerate(4);

  const f: Figures = {
    appTps: [],
    rawTps: [],
    appE2e: [],
    rawE2e: [],
    appTtft: [],
    rawTtft: [],
    appOutside: [],
    rawOutside: [],
    appCpu: [],
    rawCpu: [],
    appThreads: new Map(),
    rawThreads: new Map(),
    appTokens: 0,
    rawTokens: 0,
    loadBefore: load1(),
    loadAfter: NaN,
  };
  const box = appPage.getByRole('textbox', { name: 'Message' });
  const resetApp = async () => {
    await appPage.getByRole('button', { name: 'Reset' }).click();
    await appPage.getByText('Ready!').waitFor();
  };
  for (let i = 0; i < RUNS + 1; i++) {
    // App: a fresh conversation each time, so the prompt is the same.
    await box.fill(PROMPT);
    const appCpuBefore = descendantCpuSeconds();
    const appThreadsBefore = threadCpuSeconds();
    const reply = await appReply(appPage);
    const appThreadsAfter = threadCpuSeconds();
    const appCpuAfter = descendantCpuSeconds();
    await appPage.getByText(/Generated \d+ tokens in/).waitFor({ timeout: 300_000 });
    if (reply.tokens !== TOKENS)
      throw new Error(`${model.id}: the app's reply had ${reply.tokens} tokens, not ${TOKENS}`);
    const detail = (await appPage.locator('.speed-detail').textContent()) ?? '';
    const figures = parseDetail(detail);
    f.appTtft.push(figures.ttft);
    // The first reply after loading is measured for TTFT only (it pays any cold start).
    if (i > 0) {
      f.appTps.push(figures.tps);
      f.appE2e.push(reply.tokens / reply.seconds);
      f.appOutside.push(reply.seconds - modelSeconds(figures.ttft, figures.tps, reply.tokens));
      if (appCpuBefore !== null && appCpuAfter !== null)
        f.appCpu.push(((appCpuAfter - appCpuBefore) * 1000) / reply.tokens);
      addThreads(f.appThreads, appThreadsBefore, appThreadsAfter);
      f.appTokens += reply.tokens;
    }
    await resetApp();
    if (i === 0) continue;
    const rawCpuBefore = descendantCpuSeconds();
    const rawThreadsBefore = threadCpuSeconds();
    const r = await rawGenerate(TOKENS);
    const rawThreadsAfter = threadCpuSeconds();
    const rawCpuAfter = descendantCpuSeconds();
    addThreads(f.rawThreads, rawThreadsBefore, rawThreadsAfter);
    f.rawTokens += r.numTokens;
    if (rawCpuBefore !== null && rawCpuAfter !== null)
      f.rawCpu.push(((rawCpuAfter - rawCpuBefore) * 1000) / r.numTokens);
    if (r.numTokens !== TOKENS)
      throw new Error(`${model.id}: the raw reply had ${r.numTokens} tokens, not ${TOKENS}`);
    if (r.decodeTps !== null) f.rawTps.push(r.decodeTps);
    if (r.ttft !== null) f.rawTtft.push(r.ttft);
    if (r.ttft !== null && r.decodeTps !== null)
      f.rawOutside.push(r.e2eSeconds - modelSeconds(r.ttft, r.decodeTps, r.numTokens));
    f.rawE2e.push(r.numTokens / r.e2eSeconds);
  }
  f.loadAfter = load1();
  report(model, f);
  if (turns) await benchTurns(appPage, rawPage, model, resetApp);
  if (profile) {
    const traced = <T>(page: Page, side: string, run: () => Promise<T>) =>
      profileReply(page.context(), page, `${side}, ${model.id}`, run, TOKENS);
    await box.fill(PROMPT);
    await traced(appPage, 'app', () => appReply(appPage));
    await resetApp();
    await traced(rawPage, 'raw', () => rawGenerate(TOKENS));
  }
  await rawPage.close();
}

/**
 * `--turns`: the same conversation in the app (one chat, its cache kept between turns) and on the
 * plain page (each turn reads the whole conversation again), alternated, RUNS times.
 * Prints per turn the time to first token and submit → done tokens/s of each side.
 */
async function benchTurns(
  appPage: Page,
  rawPage: Page,
  model: Model,
  resetApp: () => Promise<void>,
) {
  const box = appPage.getByRole('textbox', { name: 'Message' });
  const sides = () =>
    TURN_PROMPTS.map(() => ({
      ttft: [] as number[],
      e2e: [] as number[],
      decode: [] as number[],
      prompt: 0,
      cached: 0,
    }));
  const app = sides();
  const raw = sides();
  for (let rep = 0; rep < RUNS; rep++) {
    for (const [turn, prompt] of TURN_PROMPTS.entries()) {
      await box.fill(prompt);
      const reply = await appReply(appPage);
      await appPage.getByText(/Generated \+?\d+ tokens in/).waitFor({ timeout: 300_000 });
      const detail = (await appPage.locator('.speed-detail').textContent()) ?? '';
      const figures = parseDetail(detail);
      const a = app[turn];
      if (!a) continue;
      a.prompt = figures.prompt;
      a.cached = figures.cached;
      a.ttft.push(figures.ttft);
      a.decode.push(figures.tps);
      a.e2e.push(reply.tokens / reply.seconds);
    }
    await resetApp();
    const replies = await rawPage.evaluate(
      ([p, k]) => (window as unknown as RawWindow).rawConversation(p, k),
      [TURN_PROMPTS, TOKENS] as const,
    );
    for (const [turn, r] of replies.entries()) {
      if (r.ttft !== null) raw[turn]?.ttft.push(r.ttft);
      if (r.decodeTps !== null) raw[turn]?.decode.push(r.decodeTps);
      raw[turn]?.e2e.push(r.numTokens / r.e2eSeconds);
    }
  }
  console.log(
    `\n${model.id}: a conversation of ${TURN_PROMPTS.length} turns${documentTurns ? ', the first with a pasted text' : ''} (${TOKENS} new tokens each), ${RUNS} times, alternated; the app keeps its cache between turns (the prompt tokens it took from the cache in brackets), the plain page reads the conversation again`,
  );
  for (const [turn] of TURN_PROMPTS.entries()) {
    const a = app[turn];
    const r = raw[turn];
    if (!a || !r) continue;
    const ratio = median(a.e2e) / median(r.e2e);
    const goal =
      turn === 0
        ? ''
        : `   goal ≥ 1.00×   ${smoke ? '(smoke: not judged)' : ratio >= 1 ? 'MET' : 'NOT MET'}`;
    console.log(
      `  turn ${turn + 1}: prompt ${a.prompt} tokens (${a.cached} cached)   first token app ${median(a.ttft).toFixed(2)} s, raw ${median(r.ttft).toFixed(2)} s   decode app ÷ raw ${(median(a.decode) / median(r.decode)).toFixed(3)}×   submit → done tokens/s app ${median(a.e2e).toFixed(2)}, raw ${median(r.e2e).toFixed(2)}, app ÷ raw ${ratio.toFixed(3)}×${goal}`,
    );
  }
}

/** Adds each thread's CPU between two readings (threads in both: one that ended is left out). */
function addThreads(
  into: Map<string, number>,
  before: Map<string, number> | null,
  after: Map<string, number> | null,
) {
  if (!before || !after) return;
  for (const [key, seconds] of after) {
    const was = before.get(key);
    if (was !== undefined) into.set(key, (into.get(key) ?? 0) + seconds - was);
  }
}

/** The threads that cost either side at least this much CPU per token are listed. */
const THREAD_MIN_MS = 0.5;

function reportThreads(f: Figures) {
  if (!f.appTokens || !f.rawTokens) return;
  const perToken = (m: Map<string, number>, key: string, tokens: number) =>
    ((m.get(key) ?? 0) * 1000) / tokens;
  const rows = [...new Set([...f.appThreads.keys(), ...f.rawThreads.keys()])]
    .map((key) => ({
      key,
      app: perToken(f.appThreads, key, f.appTokens),
      raw: perToken(f.rawThreads, key, f.rawTokens),
    }))
    .filter((r) => r.app >= THREAD_MIN_MS || r.raw >= THREAD_MIN_MS)
    .sort((a, b) => b.app + b.raw - (a.app + a.raw));
  console.log('CPU ms per token by thread (both browsers; process type/thread):   app     raw');
  for (const r of rows)
    console.log(
      `  ${r.key.padEnd(64)} ${r.app.toFixed(2).padStart(6)} ${r.raw.toFixed(2).padStart(7)}`,
    );
}

function report(model: Model, f: Figures) {
  const judge = (ok: boolean) => (smoke ? '(smoke: not judged)' : ok ? 'MET' : 'NOT MET');
  const line = (name: string, app: number[], raw: number[]) => {
    const ratio = median(app) / median(raw);
    // Each app run over the raw run right after it: how far one pair's ratio strays from another.
    const paired = app.map((a, i) => a / (raw[i] ?? NaN));
    console.log(
      `${name.padEnd(22)} app ${median(app).toFixed(2)} (${spread(app)})   raw ${median(raw).toFixed(2)} (${spread(raw)})   app ÷ raw ${ratio.toFixed(3)}× (pairs ${spread(paired)})   goal ≥ 0.95×   ${judge(ratio >= 0.95)}`,
    );
  };
  console.log(
    `\n${model.id} (${model.shape}) — ${RUNS} runs each, ${TOKENS} new tokens, alternated app/raw, ` +
      `${oneBrowser ? 'both pages in one Chromium' : 'each page in its own Chromium'}; ` +
      `1-min load average ${f.loadBefore.toFixed(2)} before, ${f.loadAfter.toFixed(2)} after`,
  );
  line('decode tokens/s', f.appTps, f.rawTps);
  // In run order: a side that slows down (or speeds up) from run to run shows here.
  const inOrder = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
  console.log(`  decode by run: app ${inOrder(f.appTps)} | raw ${inOrder(f.rawTps)}`);
  line('submit → done tokens/s', f.appE2e, f.rawE2e);
  if (f.appCpu.length && f.rawCpu.length)
    console.log(
      `CPU per token (the browser's processes) app ${median(f.appCpu).toFixed(1)} ms (${spread(f.appCpu)})   raw ${median(f.rawCpu).toFixed(1)} ms (${spread(f.rawCpu)})   app ÷ raw ${(median(f.appCpu) / median(f.rawCpu)).toFixed(3)}×`,
    );
  reportThreads(f);
  console.log(
    `outside the model (submit → done less first token and decode) app ${median(f.appOutside).toFixed(3)} s (${spread(f.appOutside)})   raw ${median(f.rawOutside).toFixed(3)} s (${spread(f.rawOutside)})`,
  );
  const firstTtft = f.appTtft[0] ?? NaN;
  const later = f.appTtft.slice(1);
  const ttftRatio = firstTtft / median(later);
  console.log(
    `time to first token: first reply after load ${firstTtft.toFixed(2)} s, later replies median ${median(later).toFixed(2)} s (spread ${spread(later)}; raw ${median(f.rawTtft).toFixed(2)} s); first ÷ later ${ttftRatio.toFixed(2)}×   goal ≤ 2×   ${judge(ttftRatio <= 2)}`,
  );
}

async function main() {
  if (chosen.some((m) => m.key === 'wide')) ensureWideModel();
  const app = await serveDist();
  const raw = await serveRaw();
  const models = await serveModels(Object.fromEntries(MODELS.map((m) => [m.id, m.dir])));
  const browser = await launch({ webgpu: true });
  const rawBrowser = typing || oneBrowser ? null : await launch({ webgpu: true });
  try {
    if (typing) await typingOnly(browser, app.url, models.url);
    else
      for (const model of chosen) {
        await benchModel(browser, rawBrowser, app.url, raw.url, models.url, model);
      }
    const foreign = [...browser.foreignRequests, ...(rawBrowser?.foreignRequests ?? [])];
    if (foreign.length) throw new Error(`foreign requests: ${foreign.join(', ')}`);
  } finally {
    await browser.close();
    await rawBrowser?.close();
    await app.close();
    await raw.close();
    await models.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
