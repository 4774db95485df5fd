/**
 * Decode speed and greedy ids of the trainer's browser exports (training/web_export.py) in
 * transformers.js, the code path the app runs: training/bench_export.py (npm run bench:export)
 * calls it on the web/ folders it exported and compares the ids with ONNX Runtime (Python) and
 * PyTorch; it can also be run by hand on any export.
 *
 *   node --import tsx tests/bench/export-decode.ts [options] WEB_DIR [WEB_DIR ...]
 *
 *   --tokens N      new tokens per reply (32)
 *   --rounds R      timed replies per folder (3), the folders alternated A B … then … B A
 *   --dtype D       the transformers.js dtype, i.e. the file loaded: q4 (onnx/model_q4.onnx),
 *                   q4f16, fp16 or fp32
 *   --device cpu    Node with onnxruntime-node (default)
 *   --device webgpu Chromium (playwright-core, /usr/bin/chromium or CHROMIUM_PATH) with WebGPU on
 *                   the machine's GPU; add --swiftshader for Chromium's software WebGPU (runs
 *                   anywhere, only to check the path: its figures say nothing about a GPU)
 *   --json PATH     also write the figures as JSON
 *   --cache DIR     transformers.js's file cache (Node; default a temporary folder, removed)
 *
 * Every folder is served by a loopback server laid out like the Hub (tests/e2e/harness.ts,
 * serveModels), as the app and tests/node/trained-export.test.ts load models. The prompt is the
 * export's own check prompt (web/export.json → reference.prompt_ids), fed as ids; decoding is
 * greedy with min_new_tokens = max_new_tokens, so every reply has exactly N tokens (end-of-sequence
 * ids are masked, as transformers.js's MinNewTokensLengthLogitsProcessor does).
 *
 * Decode tokens/s: the tokens after the first ÷ the time after the first (the streamer's
 * timestamps), so the prefill is excluded; the first token's time is reported as prefill seconds.
 * Each folder first gets one untimed warm-up reply.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import {
  AutoModelForCausalLM,
  Tensor,
  env,
  type DynamicCache,
  type TextStreamer,
  type PreTrainedModel,
} from '@huggingface/transformers';
import {
  CHROMIUM_FLAGS,
  launch,
  serveModels,
  type Browser,
  type RunningServer,
} from '../e2e/harness';
import { servePage } from './serve-page';

/** The transformers.js dtypes whose files web_export.py writes (onnx/model{suffix}.onnx). */
const DTYPES = ['fp32', 'fp16', 'q4', 'q4f16'] as const;
type Dtype = (typeof DTYPES)[number];

interface Options {
  dirs: string[];
  tokens: number;
  rounds: number;
  dtype: Dtype;
  device: 'cpu' | 'webgpu';
  swiftshader: boolean;
  json: string | null;
  cache: string | null;
}

/** One reply's figures (the same shape from Node and from the page). */
interface Reply {
  ids: number[];
  seconds: number;
  prefillSeconds: number | null;
  decodeTps: number | null;
}

interface FolderResult {
  dir: string;
  repo: string;
  loadSeconds: number;
  promptTokens: number;
  ids: number[];
  /** Whether every timed reply gave the warm-up's ids. */
  deterministic: boolean;
  decodeTps: number[];
  prefillSeconds: number[];
  medianDecodeTps: number | null;
}

function usage(message: string): never {
  console.error(`export-decode: ${message}`);
  console.error(
    'usage: node --import tsx tests/bench/export-decode.ts [--tokens N] [--rounds R] [--dtype D] ' +
      '[--device cpu|webgpu] [--swiftshader] [--json PATH] [--cache DIR] WEB_DIR [WEB_DIR ...]',
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    dirs: [],
    tokens: 32,
    rounds: 3,
    dtype: 'q4',
    device: 'cpu',
    swiftshader: false,
    json: null,
    cache: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const value = () => {
      const next = argv[++i];
      if (next === undefined) usage(`${arg} needs a value`);
      return next;
    };
    const count = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) usage(`${arg} needs a positive whole number`);
      return n;
    };
    if (arg === '--tokens') options.tokens = count();
    else if (arg === '--rounds') options.rounds = count();
    else if (arg === '--dtype') {
      const dtype = value();
      const known = DTYPES.find((d) => d === dtype);
      if (!known) usage(`unknown dtype ${dtype} (known: ${DTYPES.join(', ')})`);
      options.dtype = known;
    } else if (arg === '--json') options.json = value();
    else if (arg === '--cache') options.cache = value();
    else if (arg === '--swiftshader') options.swiftshader = true;
    else if (arg === '--device') {
      const device = value();
      if (device !== 'cpu' && device !== 'webgpu') usage(`unknown device ${device}`);
      options.device = device;
    } else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else options.dirs.push(resolve(arg));
  }
  if (options.tokens < 2) usage('--tokens must be at least 2 (decode speed needs two tokens)');
  if (!options.dirs.length) usage('no web/ folder given');
  for (const dir of options.dirs) {
    if (!existsSync(join(dir, 'export.json'))) usage(`${dir} has no export.json`);
  }
  return options;
}

function promptIds(dir: string): number[] {
  const report: unknown = JSON.parse(readFileSync(join(dir, 'export.json'), 'utf8'));
  const ids =
    typeof report === 'object' && report !== null && 'reference' in report
      ? (report.reference as { prompt_ids?: unknown }).prompt_ids
      : undefined;
  if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id)))
    throw new Error(`${dir}/export.json has no reference.prompt_ids`);
  return ids.map(Number);
}

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? null) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** Figures from the streamer's timestamps (the first put is the prompt, not a token). */
function figures(ids: number[], started: number, end: number, stamps: number[]): Reply {
  const first = stamps[0];
  const last = stamps[stamps.length - 1];
  return {
    ids,
    seconds: (end - started) / 1000,
    prefillSeconds: first === undefined ? null : (first - started) / 1000,
    decodeTps:
      stamps.length > 1 && first !== undefined && last !== undefined && last > first
        ? ((stamps.length - 1) / (last - first)) * 1000
        : null,
  };
}

// ------------------------------------------------------------------------------ Node (CPU)

async function nodeReply(lm: PreTrainedModel, prompt: number[], tokens: number): Promise<Reply> {
  const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
  const attention_mask = new Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [
    1,
    prompt.length,
  ]);
  const stamps: number[] = [];
  let promptSeen = false;
  // A BaseStreamer; generate's parameter type also asks for TextStreamer's fields, which it reads
  // only from a TextStreamer.
  const streamer = {
    put() {
      if (promptSeen) stamps.push(performance.now());
      promptSeen = true;
    },
    end() {},
  } as unknown as TextStreamer;
  const started = performance.now();
  const out = (await lm.generate({
    input_ids,
    attention_mask,
    max_new_tokens: tokens,
    min_new_tokens: tokens,
    do_sample: false,
    streamer,
    return_dict_in_generate: true,
  })) as { sequences: Tensor; past_key_values: DynamicCache };
  const end = performance.now();
  const ids = ((out.sequences.tolist() as bigint[][])[0] ?? []).slice(prompt.length).map(Number);
  await out.past_key_values.dispose();
  return figures(ids, started, end, stamps);
}

interface Engine {
  load(repo: string): Promise<number>;
  reply(repo: string, prompt: number[], tokens: number): Promise<Reply>;
  describe(): Promise<string>;
  close(): Promise<void>;
}

async function nodeEngine(options: Options, models: RunningServer): Promise<Engine> {
  const cacheDir = options.cache ?? mkdtempSync(join(tmpdir(), 'export-decode-cache-'));
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = models.url;
  // onnxruntime-node loads files by path: transformers.js hands it the cached copy.
  env.useFSCache = true;
  env.cacheDir = cacheDir;
  env.useBrowserCache = false;
  const loaded = new Map<string, PreTrainedModel>();
  return {
    async load(repo) {
      const t0 = performance.now();
      loaded.set(
        repo,
        await AutoModelForCausalLM.from_pretrained(repo, { dtype: options.dtype, device: 'cpu' }),
      );
      return (performance.now() - t0) / 1000;
    },
    reply(repo, prompt, tokens) {
      const lm = loaded.get(repo);
      if (!lm) throw new Error(`${repo} is not loaded`);
      return nodeReply(lm, prompt, tokens);
    },
    async describe() {
      return `Node ${process.version}, onnxruntime-node, CPU`;
    },
    async close() {
      for (const lm of loaded.values()) await lm.dispose();
      if (!options.cache) rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

// -------------------------------------------------------------------- Chromium (WebGPU)

/** The page: transformers.js's web build and ONNX Runtime Web from node_modules, nothing else. */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>export-decode</title>
<script type="importmap">{"imports": {
  "onnxruntime-web/webgpu": "/node_modules/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs",
  "onnxruntime-common": "/node_modules/onnxruntime-common/dist/esm/index.js"}}</script>
</head><body><script type="module">
import { AutoModelForCausalLM, Tensor, env }
  from '/node_modules/@huggingface/transformers/dist/transformers.web.js';
const params = new URLSearchParams(location.search);
env.remoteHost = params.get('modelHost');
env.allowLocalModels = false;
env.useBrowserCache = false;
env.backends.onnx.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
const models = new Map();
window.benchAdapter = async () => {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) return null;
  const info = adapter.info ?? {};
  return [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ')
    || 'an adapter without info';
};
window.benchLoad = async (repo, dtype) => {
  models.set(repo, await AutoModelForCausalLM.from_pretrained(repo, { dtype, device: 'webgpu' }));
  return true;
};
window.benchReply = async (repo, prompt, tokens) => {
  const model = models.get(repo);
  const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
  const attention_mask = new Tensor('int64', new BigInt64Array(prompt.length).fill(1n),
                                    [1, prompt.length]);
  const stamps = [];
  let promptSeen = false;
  const streamer = { put() { if (promptSeen) stamps.push(performance.now()); promptSeen = true; },
                     end() {} };
  const started = performance.now();
  const out = await model.generate({ input_ids, attention_mask, max_new_tokens: tokens,
    min_new_tokens: tokens, do_sample: false, streamer, return_dict_in_generate: true });
  const end = performance.now();
  const ids = out.sequences.tolist()[0].slice(prompt.length).map(Number);
  for (const t of Object.values(out.past_key_values ?? {})) t.dispose?.();
  return { ids, started, end, stamps };
};
window.benchReady = true;
</script></body></html>`;

/** Chromium on the machine's GPU: the harness's flags without --disable-gpu, WebGPU on Vulkan. */
async function launchOnGpu(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      ...CHROMIUM_FLAGS.filter((flag) => flag !== '--disable-gpu'),
      '--enable-unsafe-webgpu',
      '--enable-features=Vulkan,VulkanFromANGLE',
      '--use-angle=vulkan',
      '--ignore-gpu-blocklist',
    ],
  });
  const context = await browser.newContext();
  const foreignRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.protocol !== 'http:')
      return route.continue();
    foreignRequests.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  return { context, page, foreignRequests, consoleErrors, close: () => browser.close() };
}

interface PageReply {
  ids: number[];
  started: number;
  end: number;
  stamps: number[];
}

type BenchWindow = {
  benchReady?: boolean;
  benchAdapter(): Promise<string | null>;
  benchLoad(repo: string, dtype: string): Promise<boolean>;
  benchReply(repo: string, prompt: number[], tokens: number): Promise<PageReply>;
};

async function browserEngine(options: Options, models: RunningServer): Promise<Engine> {
  const server = await servePage('/bench.html', PAGE);
  const browser = options.swiftshader ? await launch({ webgpu: true }) : await launchOnGpu();
  const { page } = browser;
  try {
    await page.goto(`${server.url}bench.html?modelHost=${encodeURIComponent(models.url)}`);
    await page.waitForFunction(() => (window as unknown as BenchWindow).benchReady === true);
  } catch (error) {
    await browser.close();
    await server.close();
    throw error;
  }
  const adapter = await page.evaluate(() => (window as unknown as BenchWindow).benchAdapter());
  if (!adapter) {
    await browser.close();
    await server.close();
    throw new Error('Chromium offers no WebGPU adapter on this machine');
  }
  return {
    async load(repo) {
      const t0 = performance.now();
      await page.evaluate(([r, d]) => (window as unknown as BenchWindow).benchLoad(r, d), [
        repo,
        options.dtype,
      ] as const);
      return (performance.now() - t0) / 1000;
    },
    async reply(repo, prompt, tokens) {
      const r = await page.evaluate(
        ([id, p, n]) => (window as unknown as BenchWindow).benchReply(id, p, n),
        [repo, prompt, tokens] as const,
      );
      return figures(r.ids, r.started, r.end, r.stamps);
    },
    async describe() {
      return `Chromium WebGPU (${options.swiftshader ? 'SwiftShader, software' : 'GPU'}): ${adapter}`;
    },
    async close() {
      if (browser.foreignRequests.length)
        console.error(
          `export-decode: foreign requests blocked: ${browser.foreignRequests.join(', ')}`,
        );
      if (browser.consoleErrors.length)
        console.error(`export-decode: page console errors:\n${browser.consoleErrors.join('\n')}`);
      await browser.close();
      await server.close();
    },
  };
}

// -------------------------------------------------------------------------------- main

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const repos = options.dirs.map((_, i) => `local/export-${i}`);
  const models = await serveModels(
    Object.fromEntries(options.dirs.map((dir, i) => [`local/export-${i}`, dir])),
  );
  let engine: Engine | null = null;
  try {
    engine =
      options.device === 'cpu'
        ? await nodeEngine(options, models)
        : await browserEngine(options, models);
    const prompts = options.dirs.map(promptIds);
    const results: FolderResult[] = [];
    for (const [i, dir] of options.dirs.entries()) {
      const repo = repos[i] ?? '';
      const prompt = prompts[i] ?? [];
      const loadSeconds = await engine.load(repo);
      const warm = await engine.reply(repo, prompt, options.tokens);
      results.push({
        dir,
        repo,
        loadSeconds,
        promptTokens: prompt.length,
        ids: warm.ids,
        deterministic: true,
        decodeTps: [],
        prefillSeconds: [],
        medianDecodeTps: null,
      });
    }
    // Alternated: A B … in even rounds, … B A in odd ones, so a drift of the machine's speed
    // weighs on every folder alike.
    for (let round = 0; round < options.rounds; round++) {
      const order = results.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) {
        const result = results[i];
        if (!result) continue;
        const reply = await engine.reply(result.repo, prompts[i] ?? [], options.tokens);
        if (reply.decodeTps !== null) result.decodeTps.push(reply.decodeTps);
        if (reply.prefillSeconds !== null) result.prefillSeconds.push(reply.prefillSeconds);
        if (reply.ids.join() !== result.ids.join()) result.deterministic = false;
      }
    }
    for (const result of results) result.medianDecodeTps = median(result.decodeTps);

    const runtime = await engine.describe();
    console.log(
      `export-decode — ${runtime}; dtype ${options.dtype}, ${options.tokens} new tokens, ` +
        `${options.rounds} rounds alternated`,
    );
    for (const r of results) {
      const tps = r.decodeTps.map((x) => x.toFixed(2)).join(', ');
      console.log(
        `${r.dir}: load ${r.loadSeconds.toFixed(1)} s, prefill (${r.promptTokens} tokens) ` +
          `median ${(median(r.prefillSeconds) ?? NaN).toFixed(3)} s, decode tokens/s median ` +
          `${(r.medianDecodeTps ?? NaN).toFixed(2)} (${tps})` +
          (r.deterministic ? '' : ', ids DIFFER between replies'),
      );
      console.log(`  greedy ids: ${r.ids.join(' ')}`);
    }
    if (options.json) {
      const out = {
        runtime,
        device: options.device,
        swiftshader: options.swiftshader,
        dtype: options.dtype,
        tokens: options.tokens,
        rounds: options.rounds,
        results,
      };
      writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
    }
  } finally {
    await engine?.close();
    await models.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
