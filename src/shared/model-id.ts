/**
 * The one model-id rule (the Hub's, as huggingface_hub's `validate_repo_id`): `owner/name` (a bare
 * legacy `name` only where allowed), each part 1–96 characters of letters, digits, `_`, `-` and
 * `.`, starting and ending with a letter, digit or `_`, with no `--` or `..` anywhere (so no path
 * tricks such as `..`).
 */
const PART = /^(?![.-])[A-Za-z0-9._-]{1,96}(?<![.-])$/;

/** Why `id` is not a model id, or undefined when it is one. */
export function modelIdProblem(
  id: string,
  options: { requireOwner?: boolean } = {},
): string | undefined {
  const example = 'A model id looks like "owner/name", e.g. "onnx-community/gemma-2-2b-jpn-it".';
  const parts = id.split('/');
  if (id === '') return `The model id is empty. ${example}`;
  if (parts.length > 2) return `"${id}" has more than one "/". ${example}`;
  if (parts.length === 1 && options.requireOwner) return `"${id}" has no owner. ${example}`;
  if (id.includes('--') || id.includes('..'))
    return `"${id}" contains "--" or "..", which the Hub does not allow. ${example}`;
  if (!parts.every((part) => PART.test(part)))
    return `"${id}" is not a model id: each part is 1–96 letters, digits, "_", "-" or ".", not starting or ending with "-" or ".". ${example}`;
  return undefined;
}

/** True when `id` follows the Hub's model-id rule (see {@link modelIdProblem}). */
export function isModelId(id: string, options: { requireOwner?: boolean } = {}): boolean {
  return modelIdProblem(id, options) === undefined;
}
