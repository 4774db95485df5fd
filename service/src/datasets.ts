/**
 * Datasets: what PUT /datasets/{name} stores (`<data>/datasets/<name>.json`, written atomically)
 * and reading a run's data file back (GET /runs/{id}/dataset).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDatasetText } from '../../src/shared/dataset-file';
import {
  asPromptCompletion,
  type DatasetEntry,
  type DatasetResponse,
  type TrainingEntry,
} from '../../src/shared/training-api';
import { notFound, unreadable } from './errors';

export class DatasetStore {
  constructor(private readonly dir: string) {}

  /** Saves the entries as `<name>.json` ('.json' added when missing); the path is a data_file. */
  async save(name: string, entries: TrainingEntry[]): Promise<DatasetResponse> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, name.endsWith('.json') ? name : `${name}.json`);
    await writeFile(`${file}.tmp`, JSON.stringify(entries, null, 2));
    await rename(`${file}.tmp`, file);
    return { path: file, entries: entries.length };
  }
}

/**
 * A run's data file as the {prompt, completion} pairs Compare asks (chat-format entries as their
 * last exchange, asPromptCompletion); JSON or JSONL, read by the same rules as a picked file. A
 * missing or malformed file says which and why.
 */
export async function readDatasetFile(file: string): Promise<DatasetEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw notFound(`The run's data file ${file} no longer exists.`);
  }
  const parsed = parseDatasetText(file, text);
  if (!parsed.ok) throw unreadable(`The run's data file: ${parsed.error}`);
  return parsed.entries.map(asPromptCompletion);
}
