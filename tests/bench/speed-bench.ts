/**
 * npm run bench:speed — the app's streaming speed against a plain transformers.js page, measured
 * side by side in one Chromium (SwiftShader WebGPU), same tiny model, dtype, prompt (chat template),
 * greedy decoding and new-token count, runs alternated app/raw. Prints decode tokens/s (tokens after
 * the first ÷ time after the first, src/shared/generation-stats.ts) medians and spread, the ratio
 * app ÷ raw against its goal (≥ 0.95×), and the app's time to first token for the first reply after
 * loading against later replies (goal ≤ 2×).
 *
 *   npm run bench:speed                 9 runs each, 128 new tokens
 *   npm run bench:speed -- --runs 5     fewer runs
 *   npm run bench:speed -- --smoke      1 run × 16 tokens, no goals judged (CI)
 *
 * Needs `npm run build` and `npm run tiny-model` first.
 */
import { join } from 'node:path';
import {
  ROOT,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  launch,
  serveDist,
  serveModels,
} from '../e2e/harness';
import { readFileSync } from 'node:fs';
import { servePage } from './serve-page';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const runsArg = Number(args[args.indexOf('--runs') + 1]);
const RUNS = smoke ? 1 : args.includes('--runs') && runsArg > 0 ? runsArg : 9;
const TOKENS = smoke ? 16 : 128;
const PROMPT = 'Write a short story about a lighthouse keeper.';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

/** Serves the raw page and node_modules (read only) for its imports. */
function serveRaw() {
  return servePage('/raw.html', readFileSync(join(ROOT, 'tests', 'bench', 'speed-raw.html')));
}

const DETAIL =
  /Prefill: \d+ prompt tokens, first token after (\d+\.\d+) s · Decode: (\d+\.\d+) tokens\/s/;

async function main() {
  const app = await serveDist();
  const raw = await serveRaw();
  const models = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
  const browser = await launch({ webgpu: true });
  try {
    const appPage = browser.page;
    const rawPage = await browser.context.newPage();
    const host = encodeURIComponent(models.url);
    await appPage.goto(
      `${app.url}?modelHost=${host}&extraModel=${TINY_MODEL_ID}&maxTokens=${TOKENS}`,
    );
    await rawPage.goto(`${raw.url}raw.html?modelHost=${host}&model=${TINY_MODEL_ID}&dtype=fp32`);
    await appPage.getByRole('button', { name: /^Model:/ }).click();
    await appPage.getByRole('option', { name: /tiny-random-llama/ }).click();
    await appPage.getByRole('button', { name: 'Load model' }).click();
    await appPage.getByText('Ready!').waitFor({ timeout: 300_000 });
    await rawPage.waitForFunction(() => (window as unknown as { rawReady?: boolean }).rawReady);
    await rawPage.evaluate(() => (window as unknown as { rawLoad(): Promise<boolean> }).rawLoad());
    // The raw page's one untimed warm-up reply (the app warms up while loading).
    await rawPage.evaluate(
      ([p, n]) =>
        (window as unknown as { rawGenerate(p: string, n: number): Promise<unknown> }).rawGenerate(
          p,
          n,
        ),
      [PROMPT, 4] as const,
    );

    const appTps: number[] = [];
    const appTtft: number[] = [];
    const rawTps: number[] = [];
    const box = appPage.getByRole('textbox', { name: 'Message' });
    for (let i = 0; i < RUNS + 1; i++) {
      // App: a fresh conversation each time, so the prompt is the same.
      await box.fill(PROMPT);
      await box.press('Enter');
      await appPage.getByText(/Generated \d+ tokens in/).waitFor({ timeout: 300_000 });
      const detail = (await appPage.locator('.speed-detail').textContent()) ?? '';
      const m = DETAIL.exec(detail);
      if (!m) throw new Error(`Unexpected speed detail: ${detail}`);
      appTtft.push(Number(m[1]));
      // The first reply after loading is measured for TTFT only (it pays any cold start).
      if (i > 0) appTps.push(Number(m[2]));
      await appPage.getByRole('button', { name: 'Reset' }).click();
      await appPage.getByText('Ready!').waitFor();
      if (i === 0) continue;
      const r = await rawPage.evaluate(
        ([p, n]) =>
          (
            window as unknown as {
              rawGenerate(p: string, n: number): Promise<{ decodeTps: number | null }>;
            }
          ).rawGenerate(p, n),
        [PROMPT, TOKENS] as const,
      );
      if (r.decodeTps !== null) rawTps.push(r.decodeTps);
    }
    const ratio = median(appTps) / median(rawTps);
    const firstTtft = appTtft[0] ?? NaN;
    const laterTtft = median(appTtft.slice(1));
    const ttftRatio = firstTtft / laterTtft;
    const judge = (ok: boolean) => (smoke ? '(smoke: not judged)' : ok ? 'MET' : 'NOT MET');
    console.log(`bench:speed — ${RUNS} runs each, ${TOKENS} new tokens, alternated app/raw`);
    console.log(
      `app  decode tokens/s: median ${median(appTps).toFixed(2)} (spread ${spread(appTps)})`,
    );
    console.log(
      `raw  decode tokens/s: median ${median(rawTps).toFixed(2)} (spread ${spread(rawTps)})`,
    );
    console.log(`app ÷ raw: ${ratio.toFixed(3)}×   goal ≥ 0.95×   ${judge(ratio >= 0.95)}`);
    console.log(
      `time to first token: first reply after load ${firstTtft.toFixed(2)} s, later replies median ${laterTtft.toFixed(2)} s (spread ${spread(appTtft.slice(1))})`,
    );
    console.log(`first ÷ later: ${ttftRatio.toFixed(2)}×   goal ≤ 2×   ${judge(ttftRatio <= 2)}`);
    if (browser.foreignRequests.length)
      throw new Error(`foreign requests: ${browser.foreignRequests.join(', ')}`);
  } finally {
    await browser.close();
    await app.close();
    await raw.close();
    await models.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
