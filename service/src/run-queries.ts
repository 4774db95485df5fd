/**
 * Read queries on a run: its log (a tail or a page), its metrics since a cursor, the entries the
 * trainer held out and its data file's entries.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { readLog } from '../../src/shared/service-http';
import {
  RunSplitSchema,
  formatIssues,
  type DatasetEntry,
  type LogsQuery,
  type LogsResponse,
  type MetricsResponse,
  type RunSplit,
} from '../../src/shared/training-api';
import { isRecord } from '../../src/shared/guards';
import { trainingMessages } from '../../src/shared/training-messages';
import { readDatasetFile } from './datasets';
import { notFound, unreadable } from './errors';
import type { RunRegistry } from './run-registry';
import type { RunStores } from './run-stores';

export class RunQueries {
  constructor(
    private readonly registry: RunRegistry,
    private readonly stores: RunStores,
  ) {}

  /** The log's tail or a page of it, by the shared paging rule (readLog). */
  async logs(id: string, query: LogsQuery): Promise<LogsResponse> {
    this.registry.recordOf(id);
    const [store] = await this.stores.of(id);
    return readLog(store, query);
  }

  async metrics(id: string, after?: number, evalAfter?: number): Promise<MetricsResponse> {
    this.registry.recordOf(id);
    const [, metrics] = await this.stores.of(id);
    return metrics.since(after, evalAfter);
  }

  /** The entries the trainer held out (`<output_dir>/split.json`). */
  async split(id: string): Promise<RunSplit> {
    const record = this.registry.recordOf(id);
    const file = join(record.output_dir, 'split.json');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw notFound(trainingMessages.noSplit(id, file));
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw unreadable(
        `${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const fields = isRecord(raw) ? raw : {};
    const parsed = z.safeParse(RunSplitSchema, {
      seed: null,
      train_count: Array.isArray(fields.train_indices) ? fields.train_indices.length : 0,
      ...fields,
    });
    if (!parsed.success)
      throw unreadable(`${file} is malformed: ${formatIssues(parsed.error.issues, 'split')}`);
    return parsed.data;
  }

  /** Every entry of the run's data file. */
  async dataset(id: string): Promise<DatasetEntry[]> {
    return readDatasetFile(this.registry.recordOf(id).data_file);
  }
}
