import type { GenerationResponse } from '../shared/worker-protocol';

type Update = Extract<GenerationResponse, { status: 'update' }>;

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
