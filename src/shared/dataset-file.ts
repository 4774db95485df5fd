/**
 * A training data file's text: a JSON array of entries or JSONL (one entry a line), each a
 * `{prompt, completion}` pair or a chat-format `{messages}` entry (training-api.ts) — the shapes
 * training/train_data.py reads. The panel reads a picked file with it before it is sent, and the
 * service reads a run's data file with it (GET /runs/{id}/dataset). Every refusal names the file
 * (and the line or entry); a picked file's size limit is the service's for PUT /datasets/{name}.
 */
import * as z from 'zod/mini';
import {
  DATASET_LIMIT_BYTES,
  DatasetSchema,
  TrainingEntrySchema,
  formatIssues,
  type TrainingEntry,
} from './training-api';
import { formatBytes } from './format-bytes';

export type DatasetFileResult =
  { ok: true; entries: TrainingEntry[]; name: string } | { ok: false; error: string };

const ENTRY = '{prompt, completion} or {messages} entry';

/** The entry without unknown keys (the trainer reads only these). */
const clean = (entry: TrainingEntry): TrainingEntry =>
  'messages' in entry
    ? { messages: entry.messages.map(({ role, content }) => ({ role, content })) }
    : { prompt: entry.prompt, completion: entry.completion };

/** The name PUT /datasets/{name} stores it under: the file's stem, in the allowed characters. */
export function storedName(fileName: string): string {
  const stem = fileName.replace(/\.(jsonl|json)$/i, '');
  const safe = stem
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return safe || 'dataset';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Entries of a JSONL text, or the first bad line's number and what is wrong with it. */
function fromJsonl(fileName: string, text: string): DatasetFileResult {
  const entries: TrainingEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `${fileName}, line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return { ok: false, error: `${where} is not valid JSON (${errorText(error)}).` };
    }
    const entry = z.safeParse(TrainingEntrySchema, value);
    if (!entry.success)
      return {
        ok: false,
        error: `${where} is not a ${ENTRY}: ${formatIssues(entry.error.issues, 'entry')}.`,
      };
    entries.push(clean(entry.data));
  }
  return { ok: true, entries, name: storedName(fileName) };
}

/** Reads a picked file's text as a dataset; `size` in bytes is checked before anything else. */
export function parseDatasetFile(fileName: string, size: number, text: string): DatasetFileResult {
  if (size > DATASET_LIMIT_BYTES)
    return {
      ok: false,
      error: `${fileName} is too big (${formatBytes(size)}): the training service takes datasets up to ${formatBytes(DATASET_LIMIT_BYTES)}.`,
    };
  return parseDatasetText(fileName, text);
}

/** A data file's text as its entries, or why not (naming the file, and the line or entry). */
export function parseDatasetText(fileName: string, text: string): DatasetFileResult {
  if (text.trim() === '')
    return {
      ok: false,
      error: `${fileName} is empty: a dataset needs at least one ${ENTRY}.`,
    };
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch (error) {
    // Not one JSON document: JSONL, line by line (a .json file that is neither says why).
    const lines = fromJsonl(fileName, text);
    if (lines.ok || /\.jsonl$/i.test(fileName) || text.trimStart().startsWith('{')) return lines;
    return {
      ok: false,
      error: `${fileName} is not JSON or JSONL (${errorText(error)}).`,
    };
  }
  // One object alone is a one-line JSONL file.
  if (!Array.isArray(whole) && typeof whole === 'object' && whole !== null)
    return fromJsonl(fileName, text);
  const parsed = z.safeParse(DatasetSchema, whole);
  if (!parsed.success) {
    // Entries counted from 1, as a person reads the file: "entry 3: completion is required".
    const issue = parsed.error.issues[0];
    const [index, ...rest] = issue?.path ?? [];
    const where =
      typeof index === 'number' && issue
        ? `entry ${index + 1}: ${formatIssues([{ ...issue, path: rest }], 'the entry')}`
        : formatIssues(parsed.error.issues, 'the file');
    return { ok: false, error: `${fileName} is not a dataset: ${where}.` };
  }
  return { ok: true, entries: parsed.data.map(clean), name: storedName(fileName) };
}
