/**
 * The tiny family variants of `scripts/make-tiny-model.mjs`, served like the Hub and loaded through
 * the real transformers.js path (onnxruntime-node, CPU), for the chat-template and cache-reuse
 * tests. Any exported model folder (a trained export's `web/`) can be served the same way.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  env,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { ROOT, serveModels, type RunningServer } from '../e2e/harness';

export const GENERATED = join(ROOT, 'tests', 'fixtures', 'generated');

/** Folder of each generated family variant, by the id it is served under. */
export const FAMILY = {
  llama: { id: 'local/tiny-random-llama', dir: join(GENERATED, 'tiny-model') },
  llamaBare: { id: 'local/tiny-llama-bare', dir: join(GENERATED, 'tiny-llama-bare') },
  gemma: { id: 'local/tiny-gemma', dir: join(GENERATED, 'tiny-gemma') },
  r1: { id: 'local/tiny-r1', dir: join(GENERATED, 'tiny-r1') },
  noTemplate: { id: 'local/tiny-no-template', dir: join(GENERATED, 'tiny-no-template') },
  badTemplate: { id: 'local/tiny-bad-template', dir: join(GENERATED, 'tiny-bad-template') },
} as const;

export function generateTinyModels() {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'make-tiny-model.mjs')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

/** Serves `repos` (id → folder) and points transformers.js at them, with a throw-away FS cache. */
export async function serveForTransformers(repos: Record<string, string>) {
  const server: RunningServer = await serveModels(repos);
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = server.url;
  const cacheDir = mkdtempSync(join(tmpdir(), 'family-models-'));
  env.useFSCache = true;
  env.cacheDir = cacheDir;
  env.useBrowserCache = false;
  return {
    server,
    async close() {
      await server.close();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export async function loadModel(
  id: string,
  dtype = 'fp32',
): Promise<{ tokenizer: PreTrainedTokenizer; model: PreTrainedModel }> {
  const tokenizer = await AutoTokenizer.from_pretrained(id);
  const model = await AutoModelForCausalLM.from_pretrained(id, {
    dtype: dtype as 'fp32',
    device: 'cpu',
  });
  return { tokenizer, model };
}
