const FENCED_BLOCK = /```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n?([\s\S]*?)```/;

/**
 * Strips Markdown code fences around JSON (a reply wrapped in ```json fences is accepted). A fenced block
 * anywhere in the text wins (models sometimes add a sentence before it); an opening fence without
 * its closing one (a cut-off reply) is removed too; text without fences is returned trimmed.
 */
export function stripJsonFences(text: string): string {
  const block = FENCED_BLOCK.exec(text);
  if (block) return (block[1] ?? '').trim();
  return text
    .replace(/^\s*```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n?/, '')
    .replace(/\r?\n?```\s*$/, '')
    .trim();
}
