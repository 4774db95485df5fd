/**
 * Datasets: what PUT /datasets/{name} stores (`<data>/datasets/<name>.json`, written atomically)
 * and reading a run's data file back (GET /runs/{id}/dataset).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import {
  DatasetSchema,
  formatIssues,
  type DatasetEntry,
  type DatasetResponse,
} from '../../src/shared/training-api';
import { notFound, unreadable } from './errors';

export class DatasetStore {
  constructor(private readonly dir: string) {}

  /** Saves the entries as `<name>.json` ('.json' added when missing); the path is a data_file. */
  async save(name: string, entries: DatasetEntry[]): Promise<DatasetResponse> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, name.endsWith('.json') ? name : `${name}.json`);
    await writeFile(`${file}.tmp`, JSON.stringify(entries, null, 2));
    await rename(`${file}.tmp`, file);
    return { path: file, entries: entries.length };
  }
}

/** A data file's entries; a missing or malformed file says which and why. */
export async function readDatasetFile(file: string): Promise<DatasetEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw notFound(`The run's data file ${file} no longer exists.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw unreadable(
      `The run's data file ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = z.safeParse(DatasetSchema, raw);
  if (!parsed.success)
    throw unreadable(
      `The run's data file ${file} is not a dataset: ${formatIssues(parsed.error.issues, 'dataset')}`,
    );
  return parsed.data.map(({ prompt, completion }) => ({ prompt, completion }));
}
