/** The most question/answer pairs one 'Format Input' asks for. */
export const MAX_PAIRS = 100;

/** One pair of the fine-tuning dataset (a prompt and its completion). */
export interface DatasetEntry {
  /** A question about the text's key details that mentions the text's name or context. */
  prompt: string;
  /** A concise answer of 2–3 sentences (1–4 accepted). */
  completion: string;
}

/** An item of the model's output that was not kept, and why (shown, never silently dropped). */
export interface InvalidEntry {
  /** Position of the item in the model's output (0-based), within its chunk. */
  index: number;
  /** Which chunk of the text it came from (0-based). */
  chunk: number;
  reason: string;
  /** The item as the model wrote it, for the raw download. */
  item: unknown;
}

export interface ValidationResult {
  entries: DatasetEntry[];
  invalid: InvalidEntry[];
}

/** Where the pairs are generated: the hosted chat completion or the in-browser model. */
export type DatasetSource = 'hosted' | 'local';
