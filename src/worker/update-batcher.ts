import type { GenerationResponse } from '../shared/worker-protocol';

type Update = Extract<GenerationResponse, { status: 'update' }>;

/**
 * How often the reply's text is posted (plus at once for the first token and at the end): 0.1 s,
 * the limit under which a change still feels instantaneous. Each post is a render and a paint of
 * the reply (script, layout, the compositor's frame: about 10 ms of CPU).
 */
export const UPDATE_INTERVAL_MS = 100;
/**
 * On a fallback adapter (WebGPU in software, e.g. SwiftShader: `adapter.info.isFallbackAdapter`)
 * the model's compute runs on the CPU cores the page paints with, so each paint is taken from the
 * decode: there the text is posted half as often (docs/BENCHMARKS.md, "Where the tenth goes").
 */
export const FALLBACK_UPDATE_INTERVAL_MS = 200;

/** The interval for an adapter (null: none known, e.g. on the CPU backend: the usual interval). */
export function updateIntervalFor(adapter: { fallback: boolean } | null): number {
  return adapter?.fallback ? FALLBACK_UPDATE_INTERVAL_MS : UPDATE_INTERVAL_MS;
}

/**
 * Batches a generation's text on the worker side: at most one `update` per `intervalMs` (the
 * first at once), pieces of one channel joined, the latest figures kept; any other reply flushes
 * the pending text first, so order holds. Per-token postMessage and main-thread work vanish.
 */
export function createUpdateBatcher<R extends { status: string }>(
  post: (reply: R | Update) => void,
  intervalMs: number,
  now: () => number = () => performance.now(),
) {
  let pending: Update | null = null;
  let lastPost: number | null = null;
  const flush = () => {
    if (!pending) return;
    post(pending);
    pending = null;
    lastPost = now();
  };
  return {
    push(reply: R | Update): void {
      if (!isUpdate(reply)) {
        flush();
        post(reply);
        return;
      }
      if (pending && pending.channel !== reply.channel) flush();
      pending = pending ? { ...reply, output: pending.output + reply.output } : reply;
      if (lastPost === null || now() - lastPost >= intervalMs) flush();
    },
  };
}

function isUpdate(reply: { status: string }): reply is Update {
  return reply.status === 'update';
}
