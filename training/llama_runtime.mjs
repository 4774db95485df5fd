/**
 * What training/gguf_check.mjs and training/gguf_speed.mjs share: a JSON request on stdin, a JSON
 * result on stdout ({ ok: false, error } and exit code 1 when the handler throws), and a GGUF file
 * opened in llama.cpp (node-llama-cpp's prebuilt CPU binary, from the runtime folder that
 * `npm run llama:setup` fills; nothing is built or downloaded).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Loads node-llama-cpp from `runtime`, then the model at `modelPath` and one context of
 * `contextSize` tokens. `seconds.runtime`: the library and its native binary; `seconds.model`: the
 * model file and the context. `close()` frees all three. With `oneThreadPerCore`, the context
 * evaluates with as many threads as llama.cpp counts math cores; by default node-llama-cpp uses at
 * least 4 on a CPU, more than a 2-core machine has, which slows every token.
 */
export async function openGguf(runtime, modelPath, contextSize, { oneThreadPerCore = false } = {}) {
  const entry = join(runtime, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  const started = performance.now();
  const lib = await import(pathToFileURL(entry).href);
  const llama = await lib.getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    logLevel: 'error',
  });
  const ready = performance.now();
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({
    contextSize,
    ...(oneThreadPerCore ? { threads: llama.cpuMathCores } : {}),
  });
  const loaded = performance.now();
  return {
    lib,
    llama,
    model,
    context,
    seconds: { runtime: (ready - started) / 1000, model: (loaded - ready) / 1000 },
    async close() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

/** Reads the request from stdin, runs `handler(request)` and writes its result to stdout. */
export function serveRequest(handler) {
  Promise.resolve()
    .then(() => handler(JSON.parse(readFileSync(0, 'utf8'))))
    .then(
      (result) => process.stdout.write(JSON.stringify(result)),
      (error) => {
        process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }));
        process.exitCode = 1;
      },
    );
}
