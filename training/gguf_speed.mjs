/**
 * llama.cpp's load time and greedy decode speed on one GGUF file (node-llama-cpp's prebuilt CPU
 * binary, opened as training/gguf_check.mjs opens it, one thread per math core), for
 * training/bench_gguf.py.
 *
 *   node training/gguf_speed.mjs < request.json > result.json
 *
 * request: { runtime, model, prompt: [ids], tokens: new tokens per reply, rounds: timed replies }
 * result:  { ok, seconds: { runtime, model }, threads, mathCores, warmup: round, rounds: [round],
 *            medianDecodeTps, deterministic } | { ok: false, error }
 * round:   { ids, promptSeconds, decodeTps }
 *
 * Each reply starts from an empty sequence: the prompt is evaluated, then `tokens` tokens are
 * sampled greedily (temperature 0), end-of-generation tokens included (random weights pick them
 * as readily as any other, and a reply cut short would time fewer tokens). promptSeconds: the
 * prompt up to the first new token; decodeTps: the tokens after the first ÷ their time. One
 * untimed reply comes first (warm-up: page cache, thread pool, allocations).
 */
import { openGguf, serveRequest } from './llama_runtime.mjs';

async function reply(sequence, prompt, tokens) {
  await sequence.clearHistory();
  const ids = [];
  const started = performance.now();
  let first = started;
  for await (const token of sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true })) {
    ids.push(token);
    if (ids.length === 1) first = performance.now();
    if (ids.length >= tokens) break;
  }
  const decodeSeconds = (performance.now() - first) / 1000;
  return {
    ids,
    promptSeconds: (first - started) / 1000,
    decodeTps: ids.length > 1 && decodeSeconds > 0 ? (ids.length - 1) / decodeSeconds : null,
  };
}

async function measure(request) {
  const { prompt, tokens, rounds } = request;
  if (!(tokens >= 2 && rounds >= 1)) throw new Error('tokens must be >= 2 and rounds >= 1');
  const opened = await openGguf(request.runtime, request.model, prompt.length + tokens + 8, {
    oneThreadPerCore: true,
  });
  const sequence = opened.context.getSequence();
  const warmup = await reply(sequence, prompt, tokens);
  const timed = [];
  for (let i = 0; i < rounds; i++) timed.push(await reply(sequence, prompt, tokens));
  const speeds = timed.map((r) => r.decodeTps ?? 0).sort((a, b) => a - b);
  const middle = Math.floor(speeds.length / 2);
  const result = {
    ok: true,
    seconds: opened.seconds,
    threads: opened.context.currentThreads,
    mathCores: opened.llama.cpuMathCores,
    warmup,
    rounds: timed,
    medianDecodeTps: speeds.length % 2 ? speeds[middle] : (speeds[middle - 1] + speeds[middle]) / 2,
    deterministic: timed.every((r) => r.ids.join() === warmup.ids.join()),
  };
  await opened.close();
  return result;
}

serveRequest(measure);
