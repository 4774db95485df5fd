export interface PromptParams {
  /** The name or title of the text; every question must mention it or its context. */
  name: string;
  /** The sample text (or one chunk of it). */
  text: string;
  /** How many pairs to ask for. */
  count: number;
  /** 0-based position of this chunk and the number of chunks, when the text was split. */
  part?: { index: number; of: number };
}

/** The JSON schema of the reply, sent as `response_format` where the provider allows it. */
export const DATASET_JSON_SCHEMA = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: { prompt: { type: 'string' }, completion: { type: 'string' } },
        required: ['prompt', 'completion'],
        additionalProperties: false,
      },
    },
  },
  required: ['entries'],
  additionalProperties: false,
} as const;

/**
 * The one user message: the instructions plus the sample text. Asks for `count`
 * question/answer pairs as JSON: each prompt a question about the text's key details mentioning
 * its name or context, each completion a concise answer of 2–3 sentences.
 */
export function buildDatasetPrompt({ name, text, count, part }: PromptParams): string {
  const title = name.trim() || 'the text';
  const pairs = count === 1 ? '1 question/answer pair' : `${count} question/answer pairs`;
  const where = part && part.of > 1 ? ` (part ${part.index + 1} of ${part.of})` : '';
  return [
    `You are preparing a fine-tuning dataset from the text below, titled "${title}".`,
    `Write exactly ${pairs} about the key details of the text${where}.`,
    '',
    'Rules:',
    `- "prompt": a question about one key detail of the text. It must mention "${title}" or its context so that it makes sense on its own.`,
    '- "completion": a concise, correct answer of 2-3 sentences that uses only facts from the text.',
    '- Every question is different.',
    '',
    'Reply with JSON only, no prose and no code fences, in exactly this form:',
    '{"entries": [{"prompt": "...", "completion": "..."}]}',
    '',
    `Text${where}:`,
    '"""',
    text.trim(),
    '"""',
  ].join('\n');
}
