/**
 * The browser export past 2 GB, as the service runs it: `training/make_large_export.py` builds a
 * Llama-layout model with Llama 3.2 1B's vocabulary and width (2.2 GB of fp32 weights; its
 * embedding table and untied lm_head are 1.05 GB each), runs `training/finetune.py` on it (LoRA,
 * two steps) and writes PyTorch's greedy answer from the run's merged/ model. Here every published
 * variant is loaded by the REAL transformers.js code path (onnxruntime-node, CPU) from a loopback
 * server laid out like the Hub, fetching each of its external-data chunks, and generates PyTorch's
 * tokens (fp32 all of them; the others up to the first near-tie of their check's clear margin).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  type PreTrainedModel,
} from '@huggingface/transformers';
import { ROOT, type RunningServer } from '../e2e/harness';
import { serveForTransformers } from './family-models';
import { generateGreedy } from './greedy';

interface VariantReport {
  file: string;
  passed: boolean;
  published: boolean;
  bytes: number;
  external_data: string[];
  tolerance: { clear_margin: number } | null;
}
interface Expected {
  parameters: number;
  fp32_bytes: number;
  web: string;
  new_tokens: number;
  run: { exit_code: number; stdout: string[]; stderr: string };
  export: { published: string[]; failed: string[]; variants: Record<string, VariantReport> };
  single: {
    messages: { role: string; content: string }[];
    prompt_ids: number[];
    greedy: number[];
    margins: number[];
  };
}

const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const REPO = 'local/large-trained';
const GIB = 2 ** 30;
const VARIANTS = ['q4f16', 'q4', 'fp16', 'fp32'] as const;

let outDir: string;
let served: Awaited<ReturnType<typeof serveForTransformers>> | undefined;
let server: RunningServer;
let expected: Expected;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'large-export-'));
  execFileSync(PYTHON, [join(ROOT, 'training', 'make_large_export.py'), outDir], {
    cwd: ROOT,
    stdio: 'pipe',
    timeout: 840_000,
  });
  expected = JSON.parse(readFileSync(join(outDir, 'expected.json'), 'utf8')) as Expected;
  served = await serveForTransformers({ [REPO]: expected.web });
  server = served.server;
}, 900_000);

afterAll(async () => {
  await served?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
}, 120_000);

describe('a model over 2 GB, trained and exported as the service runs the trainer', () => {
  it('trains, saves and publishes every default variant, in chunks of at most 1 GiB', () => {
    expect(expected.run.exit_code).toBe(0);
    expect(expected.fp32_bytes).toBeGreaterThan(2 * 10 ** 9);
    expect(expected.run.stdout).toContain(`browser-ready model in ${expected.web}`);
    expect(existsSync(join(expected.web, '..', 'web.skipped.json'))).toBe(false);
    // The default rule: q4f16 and q4 always, fp16 and fp32 while a tab can hold them (≤ 4 GiB).
    expect(expected.export.published).toEqual([...VARIANTS]);
    const config = JSON.parse(readFileSync(join(expected.web, 'config.json'), 'utf8')) as {
      'transformers.js_config': { use_external_data_format: Record<string, number> };
    };
    const counted = config['transformers.js_config'].use_external_data_format;
    for (const variant of VARIANTS) {
      const entry = expected.export.variants[variant];
      if (!entry) throw new Error(`no ${variant} in export.json`);
      const file = entry.file.replace(/^onnx\//, '');
      expect(counted[file]).toBe(entry.external_data.length);
      // The graph itself stays small; the weights are in the chunks.
      expect(statSync(join(expected.web, entry.file)).size).toBeLessThan(16 * 2 ** 20);
      for (const chunk of entry.external_data)
        expect(statSync(join(expected.web, 'onnx', chunk)).size).toBeLessThanOrEqual(GIB);
    }
    const fp32 = expected.export.variants.fp32;
    expect(fp32?.bytes).toBeGreaterThan(2 * GIB);
    expect(fp32?.external_data.length).toBeGreaterThanOrEqual(3);
  });

  it.each(VARIANTS)(
    '%s: transformers.js fetches every chunk and generates what PyTorch generates',
    async (variant) => {
      const entry = expected.export.variants[variant];
      if (!entry?.tolerance) throw new Error(`no ${variant} check in export.json`);
      const turn = expected.single;
      const tie = turn.margins.findIndex((m) => m < entry.tolerance!.clear_margin);
      const compared =
        variant === 'fp32' ? turn.greedy.length : tie === -1 ? turn.greedy.length : tie;
      // The model's successors lead by clear margins: every variant compares every token.
      expect(compared).toBe(expected.new_tokens);
      const tokenizer = await AutoTokenizer.from_pretrained(REPO);
      const lm: PreTrainedModel = await AutoModelForCausalLM.from_pretrained(REPO, {
        dtype: variant,
        device: 'cpu',
      });
      try {
        const { promptIds, generated, cache } = await generateGreedy(
          lm,
          tokenizer,
          turn.messages,
          expected.new_tokens,
        );
        await cache.dispose();
        expect(promptIds).toEqual(turn.prompt_ids);
        expect(generated.slice(0, compared)).toEqual(turn.greedy.slice(0, compared));
      } finally {
        await lm.dispose();
      }
      for (const chunk of entry.external_data)
        expect(server.requests.some((r) => r.endsWith(`/${REPO}/resolve/main/onnx/${chunk}`))).toBe(
          true,
        );
    },
    300_000,
  );
});
