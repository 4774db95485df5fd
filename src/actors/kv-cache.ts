/**
 * The KV cache holds every token of the conversation so far except the last generated one.
 * transformers.js skips the first `past_length` ids of the next prompt, trusting that they are the
 * cached tokens; re-rendering the chat template from decoded text does not always reproduce them,
 * so the worker checks the prefix and drops the cache (a full recompute) when it differs.
 */
export function cacheCoversPrompt(
  cachedIds: readonly bigint[] | null,
  promptIds: readonly bigint[],
): boolean {
  if (!cachedIds || cachedIds.length < 2) return false;
  const pastLength = cachedIds.length - 1;
  if (promptIds.length <= pastLength) return false;
  for (let i = 0; i < pastLength; i++) {
    if (cachedIds[i] !== promptIds[i]) return false;
  }
  return true;
}
