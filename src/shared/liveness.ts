/**
 * The liveness rule, one for every request to the model worker (the chat's replies, Compare's
 * loads and replies, the model machine's loads): the worker sends a heartbeat (`alive`, every
 * 2 s) while it works, so a request that hears nothing at all for the silence allowed is given
 * up and the worker replaced. A reply is allowed REPLY_SILENCE_MS; a load more, LOAD_SILENCE_MS,
 * because creating an ONNX Runtime session runs synchronously on the worker thread for seconds
 * with a big model (src/worker/llm.worker.ts, the heartbeat).
 */
export const REPLY_SILENCE_MS = 10_000;
export const LOAD_SILENCE_MS = 30_000;
