/**
 * The real families' quirks in Chromium, on tiny models whose templates behave like them
 * (scripts/make-tiny-model.mjs): the built app, the real worker, transformers.js on SwiftShader.
 * Expected replies come from the same models run greedily by transformers.js in Node (CPU), the
 * way the worker runs them (tests/node/cache-reuse.ts), without cache reuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { ModelRegistry } from '@huggingface/transformers';
import { formatBytes } from '../../src/shared/format-bytes';
import {
  ask,
  chooseModel,
  failToLoad,
  generatedTokens,
  inBrowser,
  loadModel,
  openSettings,
  serveAppAndModels,
} from './harness';
import {
  FAMILY,
  generateTinyModels,
  loadModel as loadInNode,
  serveForTransformers,
} from '../node/family-models';
import { runConversation } from '../node/cache-reuse';

/** A second server for transformers.js in Node (the expected replies). */
let nodeHub: Awaited<ReturnType<typeof serveForTransformers>>;
/** Every model-file request: the file, and whether it was a metadata probe (Range: bytes=0-0). */
const requests: { repo: string; file: string; probe: boolean; status: number }[] = [];

const REPOS: Record<string, string> = Object.fromEntries(
  Object.values(FAMILY).map((f) => [f.id, f.dir]),
);

/** Records each request, then lets the harness serve it (the file, or a 404). */
function record(repo: string, file: string, res: ServerResponse): boolean {
  const range = res.req.headers.range;
  const dir = REPOS[repo];
  let status = 404;
  try {
    if (dir && statSync(join(dir, file)).isFile()) status = range ? 206 : 200;
  } catch {
    status = 404;
  }
  requests.push({ repo, file, probe: range === 'bytes=0-0', status });
  return false;
}

beforeAll(() => {
  generateTinyModels();
});
const servers = serveAppAndModels(REPOS, record);
beforeAll(async () => {
  nodeHub = await serveForTransformers(REPOS);
});
afterAll(async () => {
  await nodeHub?.close();
});

const MAX_TOKENS = 48;
const url = (dtype = 'fp32') =>
  servers.url(
    `&extraModel=${Object.keys(REPOS).join(',')}&extraDtype=${dtype}&maxTokens=${MAX_TOKENS}`,
  );

/** Runs `steps` with a family's model loaded by transformers.js in Node, disposed of after. */
async function inNode(
  id: string,
  steps: (node: Awaited<ReturnType<typeof loadInNode>>) => Promise<void>,
) {
  const node = await loadInNode(id);
  try {
    await steps(node);
  } finally {
    await node.model.dispose();
  }
}

describe('the real families, as a user meets them', () => {
  it('gemma-like: a system prompt reaches the model with no error; the reply ends at <end_of_turn>, counted up to it', async () => {
    await inBrowser(url(), { webgpu: true }, async ({ page }) => {
      await loadModel(page, /tiny-gemma/);
      await openSettings(page);
      await page.getByLabel('System prompt').fill('Answer in one word.');
      const reply = await ask(page, 'Tell me about music.');

      await inNode(FAMILY.gemma.id, async (node) => {
        const expected = await runConversation(node.model, node.tokenizer, {
          modelId: FAMILY.gemma.id,
          turns: ['Tell me about music.'],
          reuse: false,
          maxNewTokens: MAX_TOKENS,
          systemPrompt: 'Answer in one word.',
        });
        const ids = expected.replies[0] ?? [];
        const eot = node.tokenizer.encode('<end_of_turn>', { add_special_tokens: false })[0];
        // The template's end of turn ended it, well before the limit.
        expect(ids.at(-1)).toBe(eot);
        expect(ids.length).toBeLessThan(MAX_TOKENS);
        expect(reply.trim()).toBe((expected.texts[0] ?? '').trim());
        expect(await generatedTokens(page)).toBe(ids.length);
      });
      expect(await page.locator('.load-error, .chat-error').count()).toBe(0);
      expect(await page.getByText('System role not supported').count()).toBe(0);
    });
  });

  // The bare Llama's replies re-encode token for token (the whole cache is reused); the plain tiny
  // Llama's start with " word", which the template trims, so its cache is cut at the reply's first
  // token: on WebGPU that reads the cache back from the GPU and gives it to the next run.
  it.each([
    { model: FAMILY.llamaBare, name: /tiny-llama-bare/, how: 'whole' },
    { model: FAMILY.llama, name: /tiny-random-llama/, how: 'cut' },
  ])(
    'cache reuse ($how): three turns give the replies of a full recompute',
    async ({ model, name }) => {
      await inBrowser(url(), { webgpu: true }, async ({ page }) => {
        await loadModel(page, name);
        const turns = ['Write about music.', 'More.', 'The end.'];
        const replies: string[] = [];
        const cached: number[] = [];
        for (const turn of turns) {
          // The bubble ends with the limit note when a reply ran to the limit (not part of it).
          replies.push((await ask(page, turn)).replace(/Reached the \d+-token limit$/, '').trim());
          const detail = (await page.locator('.speed-detail').textContent()) ?? '';
          cached.push(Number(/\((\d+) cached\)/.exec(detail)?.[1] ?? 0));
        }
        // Turns 2 and 3 were given the previous turn's cache (the detail line says how much).
        expect(cached[0]).toBe(0);
        expect(cached[1]).toBeGreaterThan(0);
        expect(cached[2]).toBeGreaterThan(cached[1] ?? 0);

        await inNode(model.id, async (node) => {
          const expected = await runConversation(node.model, node.tokenizer, {
            modelId: model.id,
            turns,
            reuse: false,
            maxNewTokens: MAX_TOKENS,
          });
          expect(replies).toEqual(expected.texts.map((t) => t.trim()));
        });
      });
    },
  );

  it('R1-like: a new conversation starts with its recommended settings, shown as such', async () => {
    await inBrowser(url(), { webgpu: true }, async ({ page }) => {
      await loadModel(page, /tiny-r1/);
      await openSettings(page);
      // From its generation_config.json (do_sample, temperature 0.6, top p 0.95).
      await expect.poll(() => page.getByLabel('Temperature').inputValue()).toBe('0.6');
      expect(await page.getByLabel('Top p').inputValue()).toBe('0.95');
      expect(await page.getByText(/Recommended for this model/).textContent()).toContain(
        'temperature 0.6, top p 0.95',
      );
      // A user's own choice wins, until a new conversation.
      await page.getByLabel('Temperature').fill('1.1');
      await page.getByRole('button', { name: 'New chat' }).click();
      await expect.poll(() => page.getByLabel('Temperature').inputValue()).toBe('0.6');
    });
  });

  it('a missing variant is never downloaded; the message names what is missing; the size shown is the served bytes', async () => {
    // q4: the tiny models have only onnx/model.onnx (fp32).
    await inBrowser(url('q4'), { webgpu: true }, async ({ page }) => {
      await chooseModel(page, /tiny-gemma/);
      await expect
        .poll(() => page.getByRole('alert').first().textContent(), { timeout: 30_000 })
        .toBe('local/tiny-gemma has no q4 variant: onnx/model_q4.onnx not found.');
      expect(await page.getByRole('button', { name: 'Load model' }).isDisabled()).toBe(true);
      // Only the metadata probe asked for it: no download was tried.
      const q4 = requests.filter((r) => r.repo === FAMILY.gemma.id && r.file.endsWith('_q4.onnx'));
      expect(q4.length).toBeGreaterThan(0);
      expect(q4.filter((r) => !r.probe)).toEqual([]);

      // fp32 exists: its size is the sum of the files the plan checked, as served.
      await page.goto(url('fp32'));
      await chooseModel(page, /tiny-r1/);
      const line = page.getByText(/^Download size:/);
      await expect.poll(() => line.isVisible(), { timeout: 30_000 }).toBe(true);
      // The files transformers.js would download for this variant, as they lie on the server.
      const files = await ModelRegistry.get_files(FAMILY.r1.id, {
        dtype: 'fp32',
        device: 'webgpu',
        include_processor: false,
      });
      const bytes = files.reduce((sum, f) => sum + statSync(join(FAMILY.r1.dir, f)).size, 0);
      expect(files).toContain('onnx/model.onnx');
      expect(await line.textContent()).toContain(`Download size: ${formatBytes(bytes)} (`);
      // The picker shows it too, once known.
      await page.getByRole('button', { name: /^Model:/ }).click();
      expect(await page.getByRole('option', { name: /tiny-r1/ }).textContent()).toContain(
        formatBytes(bytes),
      );
      await page.keyboard.press('Escape');
    });
  });

  it('bad input: no chat template, or a template that raises, fails the load with a clear message; the conversation is kept', async () => {
    await inBrowser(url(), { webgpu: true }, async ({ page }) => {
      await loadModel(page, /tiny-llama-bare/);
      await ask(page, 'Keep this.');
      const modelFiles = () =>
        requests.filter(
          (r) => r.repo === FAMILY.noTemplate.id && r.file.endsWith('.onnx') && !r.probe,
        );

      const alert = page.locator('.load-error');
      await failToLoad(
        page,
        /tiny-no-template/,
        'local/tiny-no-template has no chat template (its tokenizer_config.json sets no chat_template), so it cannot be used for chat.',
        { alert },
      );
      // Found from the tokenizer, before the weights were downloaded.
      expect(modelFiles()).toEqual([]);

      await failToLoad(
        page,
        /tiny-bad-template/,
        'The chat template of local/tiny-bad-template fails on a plain user message: This template only renders tool calls',
        { alert },
      );
      // Nothing lost: the conversation is still on screen.
      expect(await page.locator('.bubble-user').first().textContent()).toBe('Keep this.');
      expect(readFileSync(join(FAMILY.badTemplate.dir, 'tokenizer_config.json'), 'utf8')).toContain(
        'raise_exception',
      );
    });
  });
});
