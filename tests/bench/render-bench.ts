/**
 * npm run bench:render — streams a 4,000-token Markdown answer (paragraphs, lists, code, tables,
 * math) into the assistant renderer in Chromium, one token per update, and prints the main-thread
 * time per update (median, p99) at the start and the end of the message, against a naive full
 * re-parse + sanitize + typeset per update. `--smoke`: 300 tokens, 50 per window (CI: runs, no figures).
 */
import { launch } from '../e2e/harness';
import { startRenderHarness } from '../render/server';

const SMOKE = process.argv.includes('--smoke');
const TOKENS = SMOKE ? 300 : 4000;
const WINDOW = SMOKE ? 50 : 200;

export function answer(tokens: number): string[] {
  const parts: string[] = [];
  const words =
    'the model streams tokens while the view keeps only the open block live and every finished block stays as it was'.split(
      ' ',
    );
  let n = 0;
  const push = (s: string) => {
    // split into word-ish tokens like a BPE tokenizer would
    for (const piece of s.match(/\s*\S+|\s+/g) ?? []) {
      parts.push(piece);
      n++;
    }
  };
  for (let section = 0; n < tokens; section++) {
    push(`\n\n## Section ${section}\n\n`);
    for (let i = 0; i < 30; i++) push(`${words[(i + section) % words.length]} `);
    push(`with math $a_${section}^2 + b^2 = c^2$ inline.\n\n`);
    push(
      `- first point about ${words[section % words.length]}\n- second point with **bold** text\n\n`,
    );
    push(
      '```ts\nfunction area(width: number, height: number): number {\n  return width * height;\n}\n```\n\n',
    );
    push(`$$\n\\sum_{i=1}^{${section + 2}} i = \\frac{n(n+1)}{2}\n$$\n\n`);
    push('| a | b |\n|---|---|\n| 1 | 2 |\n\n');
  }
  return parts.slice(0, tokens);
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { median: at(0.5), p99: at(0.99) };
}

const fmt = (x: number) => `${x.toFixed(3)} ms`;

async function main() {
  const harness = await startRenderHarness();
  const browser = await launch({ webgpu: false });
  try {
    await browser.page.goto(harness.url);
    await browser.page.waitForFunction(() => 'harness' in window);
    // As the app does once the markdown chunk has loaded (on idle, before any message).
    await browser.page.evaluate(() => window.harness.warmUp());
    const tokens = answer(TOKENS);
    const N = WINDOW;
    const incremental = await browser.page.evaluate(
      ([t]) => window.harness.streamTimed(t ?? [], 'incremental'),
      [tokens],
    );
    const rows: Record<string, { median: number; p99: number }> = {
      [`incremental, tokens 1-${N}`]: stats(incremental.slice(0, N)),
      [`incremental, tokens ${tokens.length - N + 1}-${tokens.length}`]: stats(
        incremental.slice(-N),
      ),
    };
    // The naive baselines: marked.parse + DOMPurify + innerHTML of the whole message per update,
    // without and with KaTeX typesetting of every formula (cached), from the same prefixes.
    for (const mode of ['naive', 'naive+math'] as const) {
      const start = await browser.page.evaluate(
        ([t, m]) => window.harness.streamTimed(t ?? [], m, 0),
        [tokens.slice(0, N), mode] as const,
      );
      const end = await browser.page.evaluate(
        ([t, m, from]) => window.harness.streamTimed(t ?? [], m, from),
        [tokens, mode, tokens.length - N] as const,
      );
      rows[`${mode} full re-parse, tokens 1-${N}`] = stats(start);
      rows[`${mode} full re-parse, tokens ${tokens.length - N + 1}-${tokens.length}`] = stats(end);
    }
    console.log(
      `Streaming a ${tokens.length}-token answer (${tokens.join('').length} chars), one token per update, Chromium main thread (update + forced layout):`,
    );
    for (const [name, { median, p99 }] of Object.entries(rows))
      console.log(`  ${name.padEnd(46)} median ${fmt(median)}  p99 ${fmt(p99)}`);
    const endOf = (name: string) =>
      rows[`${name}, tokens ${tokens.length - N + 1}-${tokens.length}`]?.median ?? NaN;
    const inc = endOf('incremental');
    console.log(
      `  at the end of the message, median: naive re-parse = ${(endOf('naive full re-parse') / inc).toFixed(1)}x the incremental update, naive+math = ${(endOf('naive+math full re-parse') / inc).toFixed(1)}x`,
    );
    const over = incremental.filter((t) => t > 16.7).length;
    if (process.env.BENCH_DEBUG) {
      const slow = incremental
        .map((t, i) => ({ t, i }))
        .sort((a, b) => b.t - a.t)
        .slice(0, 12);
      for (const { t, i } of slow)
        console.log(
          `    slow #${i} ${t.toFixed(1)} ms ${JSON.stringify(tokens.slice(Math.max(0, i - 3), i + 1).join(''))}`,
        );
    }
    console.log(`  incremental updates over one frame (16.7 ms): ${over} of ${incremental.length}`);
  } finally {
    await browser.close();
    await harness.server.close();
  }
}

if (!process.env.BENCH_NO_MAIN) void main();
