/**
 * The trainer's browser export (training/web_export.py) loaded by the REAL transformers.js code
 * path (onnxruntime-node, CPU) from a loopback server laid out like the Hub: every exported
 * variant of tiny trained models generates what the merged PyTorch model generates.
 *
 * `training/make_test_export.py OUTDIR` (run in beforeAll with the trainer's .venv) teaches tiny
 * Llama and Gemma2 models one answer, exports them, and writes PyTorch's greedy tokens for a fixed
 * chat prompt (and a second turn) to OUTDIR/expected.json.
 *
 * Rule: fp32 generates exactly PyTorch's 16 tokens. fp16, q4 and q4f16 generate PyTorch's tokens up
 * to the first near-tie (a step where PyTorch's top-1 lead is below the variant's clear margin from
 * export.json); the taught fixtures have no near-tie in 16 steps, and the test asserts that, so
 * for them all 16 tokens are compared too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCacheReuse } from './cache-reuse';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  type Tensor,
  type PreTrainedModel,
} from '@huggingface/transformers';
import { ROOT, type RunningServer } from '../e2e/harness';
import { serveForTransformers } from './family-models';
import { generateGreedy } from './greedy';

interface Turn {
  messages: { role: string; content: string }[];
  prompt_ids: number[];
  greedy: number[];
  margins: number[];
}
interface ExportedModel {
  web: string;
  published: string[];
  graph: 'fused' | 'eager';
  single: Turn;
  multi_turn: Turn;
  export: Record<
    string,
    {
      passed: boolean;
      clear_margin: number | null;
      max_abs_diff: number;
      external_data: string[];
    }
  >;
}
interface Expected {
  new_tokens: number;
  models: Record<string, ExportedModel>;
}

const KINDS = ['llama', 'gemma2', 'qwen3', 'gemma3'] as const;
/** The kinds whose cache reuse across turns is checked (one fused graph, one eager). */
const REUSE_KINDS = ['llama', 'gemma2'] as const;
/** The llama model again, its weights in several small chunks (`<file>_data`, `<file>_data_1`, …). */
const CHUNKED = 'llama-chunked';
const VARIANTS = ['fp32', 'fp16', 'q4', 'q4f16'] as const;
const PYTHON = join(ROOT, '.venv', 'bin', 'python');

let outDir: string;
let served: Awaited<ReturnType<typeof serveForTransformers>> | undefined;
let server: RunningServer;
let expected: Expected;

const repoId = (kind: string) => `local/trained-${kind}`;

function model(kind: string): ExportedModel {
  const m = expected.models[kind];
  if (!m) throw new Error(`make_test_export.py wrote no ${kind} model`);
  return m;
}

/** How many leading tokens the rule compares for `variant` (see the file comment). */
function comparedSteps(m: ExportedModel, turn: Turn, variant: string): number {
  if (variant === 'fp32') return turn.greedy.length;
  const clear = m.export[variant]?.clear_margin;
  if (clear == null) throw new Error(`export.json has no clear margin for ${variant}`);
  const firstTie = turn.margins.findIndex((margin) => margin < clear);
  return firstTie === -1 ? turn.greedy.length : firstTie;
}

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'trained-export-'));
  execFileSync(PYTHON, [join(ROOT, 'training', 'make_test_export.py'), outDir, ...KINDS], {
    cwd: ROOT,
    stdio: 'pipe',
    timeout: 540_000,
  });
  expected = JSON.parse(readFileSync(join(outDir, 'expected.json'), 'utf8')) as Expected;
}, 600_000);

beforeAll(async () => {
  served = await serveForTransformers(
    Object.fromEntries([...KINDS, CHUNKED].map((k) => [repoId(k), model(k).web])),
  );
  server = served.server;
});

afterAll(async () => {
  await served?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Loads `variant` of `kind` with transformers.js and checks its greedy output against PyTorch's. */
async function checkVariant(kind: string, variant: (typeof VARIANTS)[number]): Promise<void> {
  const m = model(kind);
  const tokenizer = await AutoTokenizer.from_pretrained(repoId(kind));
  const lm: PreTrainedModel = await AutoModelForCausalLM.from_pretrained(repoId(kind), {
    dtype: variant,
    device: 'cpu',
  });
  try {
    const session = (
      lm.sessions as Record<
        string,
        { inputNames: string[]; inputMetadata: { name: string; type?: string }[] }
      >
    ).model;
    expect(session?.inputNames.slice(0, 3)).toEqual([
      'input_ids',
      'attention_mask',
      'position_ids',
    ]);
    const half = variant === 'fp16' || variant === 'q4f16';
    const pastTypes = new Set(
      session?.inputMetadata
        .filter((meta) => meta.name.startsWith('past_key_values.'))
        .map((meta) => meta.type),
    );
    expect([...pastTypes]).toEqual([half ? 'float16' : 'float32']);

    for (const turn of [m.single, m.multi_turn]) {
      const {
        promptIds,
        generated,
        cache: past,
      } = await generateGreedy(lm, tokenizer, turn.messages, expected.new_tokens);
      expect(promptIds).toEqual(turn.prompt_ids);
      // min_new_tokens keeps transformers.js from ending at the end-of-turn token, so the
      // comparison stops where PyTorch's answer ends (the taught answers run past 16 tokens, a
      // second turn's may not).
      const eos = [lm.generation_config?.eos_token_id ?? []].flat();
      const end = turn.greedy.findIndex((id) => eos.includes(id));
      const n = Math.min(comparedSteps(m, turn, variant), end === -1 ? Infinity : end);
      expect(n).toBeGreaterThan(0);
      expect(generated.slice(0, n)).toEqual(turn.greedy.slice(0, n));
      // What transformers.js fed back as the past: the present tensors, in the file's dtype.
      const cache = past as unknown as Record<string, Tensor>;
      expect(cache['past_key_values.0.key']?.type).toBe(half ? 'float16' : 'float32');
      await past.dispose();
    }
  } finally {
    await lm.dispose();
  }
}

describe.each(KINDS)('trained tiny %s exported by training/web_export.py', (kind) => {
  it('publishes every variant under transformers.js file names', () => {
    const m = model(kind);
    // Gemma 2 soft-caps its attention, which ONNX Runtime Web's GroupQueryAttention does not
    // apply: torch.onnx.export's eager graph; the others: ONNX Runtime's fused decoder operators.
    expect(m.graph).toBe(kind === 'gemma2' ? 'eager' : 'fused');
    expect([...m.published].sort()).toEqual([...VARIANTS].sort());
    for (const name of ['model.onnx', 'model_fp16.onnx', 'model_q4.onnx', 'model_q4f16.onnx']) {
      expect(existsSync(join(m.web, 'onnx', name))).toBe(true);
    }
    // The taught model has no near-tie in 16 steps, so the rule compares every token.
    for (const variant of VARIANTS) {
      expect(comparedSteps(m, m.single, variant)).toBe(expected.new_tokens);
    }
  });

  it.each(VARIANTS)(
    '%s: transformers.js generates what PyTorch generates, feeding the cache dtype the file declares',
    (variant) => checkVariant(kind, variant),
  );
});

// Issue 21's proof of the chat's cache reuse, on the trainer's own exports: three turns give the
// same tokens with the previous turn's KV cache as with a full recompute (greedy).
describe.each(REUSE_KINDS)('trained tiny %s export: cache reuse across turns', (kind) => {
  it.each(['fp32', 'q4f16'] as const)(
    '%s: the same replies with and without reuse',
    async (variant) => {
      const tokenizer = await AutoTokenizer.from_pretrained(repoId(kind));
      const lm: PreTrainedModel = await AutoModelForCausalLM.from_pretrained(repoId(kind), {
        dtype: variant,
        device: 'cpu',
      });
      try {
        const { withReuse, without } = await compareCacheReuse(lm, tokenizer, {
          modelId: repoId(kind),
          turns: ['What is it?', 'Tell me more.', 'Thanks.'],
          maxNewTokens: 10,
        });
        expect(withReuse.replies).toEqual(without.replies);
        expect(without.reused).toBe(0);
      } finally {
        await lm.dispose();
      }
    },
  );
});

describe('weights in several chunks (transformers.js_config.use_external_data_format)', () => {
  it('publishes fp32 and q4f16 with their chunks counted in config.json', () => {
    const m = model(CHUNKED);
    expect([...m.published].sort()).toEqual(['fp32', 'q4f16']);
    const config = JSON.parse(readFileSync(join(m.web, 'config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const fp32 = m.export.fp32?.external_data ?? [];
    const q4f16 = m.export.q4f16?.external_data ?? [];
    expect(fp32.length).toBeGreaterThan(2);
    expect(q4f16.length).toBeGreaterThan(1);
    expect(config['transformers.js_config']).toEqual({
      use_external_data_format: { 'model.onnx': fp32.length, 'model_q4f16.onnx': q4f16.length },
    });
    for (const name of [...fp32, ...q4f16])
      expect(existsSync(join(m.web, 'onnx', name))).toBe(true);
  });

  it.each(['fp32', 'q4f16'] as const)(
    '%s fetches every chunk and generates what PyTorch generates',
    async (variant) => {
      await checkVariant(CHUNKED, variant);
      const base = variant === 'fp32' ? 'model.onnx' : 'model_q4f16.onnx';
      const chunks = model(CHUNKED).export[variant]?.external_data ?? [];
      expect(chunks[1]).toBe(`${base}_data_1`);
      for (const chunk of chunks)
        expect(
          server.requests.some((r) => r.endsWith(`/${repoId(CHUNKED)}/resolve/main/onnx/${chunk}`)),
        ).toBe(true);
    },
  );
});
