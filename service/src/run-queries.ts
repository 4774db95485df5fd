/**
 * Read queries on a run: its log (a tail or a page), its metrics since a cursor, the entries the
 * trainer held out, its data file's entries and its exports (`gguf/`).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { readLog } from '../../src/shared/service-http';
import {
  ARCHIVE_FOLDERS,
  MODELFILE,
  archiveRefusal,
  archiveStem,
  downloadableNames,
  exportWhileRunning,
  ggufBeingWritten,
  ggufExports,
  noExportFile,
  runArchive,
  type GgufWriting,
} from '../../src/shared/run-exports';
import { ARCHIVE_KINDS, type ArchiveKind } from '../../src/shared/training-api';
import {
  RunSplitSchema,
  formatIssues,
  type DatasetEntry,
  type LogsQuery,
  type LogsResponse,
  type MetricsResponse,
  type RunExports,
  type RunSplit,
} from '../../src/shared/training-api';
import { isRecord } from '../../src/shared/guards';
import { trainingMessages } from '../../src/shared/training-messages';
import { archiveCheck, archiveFiles, archiveFolder, zipSize } from './archives';
import { readDatasetFile } from './datasets';
import { notFound, unreadable, wrongState } from './errors';
import { resolveModelFile } from './models';
import type { RunRegistry } from './run-registry';
import type { RunStores } from './run-stores';

export class RunQueries {
  constructor(
    private readonly registry: RunRegistry,
    private readonly stores: RunStores,
    /** The GGUF export asked after the run and still being written, if any (gguf-exports.ts). */
    private readonly ggufWriting: (id: string) => GgufWriting | null = () => null,
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
    const raw = await readJson(file);
    if (raw === null) throw notFound(trainingMessages.noSplit(id, file));
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

  /** What `<output_dir>/gguf/` (or `gguf.skipped.json`) holds for export (run-exports.ts). */
  async exports(id: string): Promise<RunExports> {
    const record = this.registry.recordOf(id);
    const dir = record.output_dir;
    if (record.state !== 'running' && !(await isFolder(dir)))
      throw notFound(`Run ${id}'s output folder ${dir} no longer exists (deleted or moved?)`);
    const folder = join(dir, 'gguf');
    const report = await readJson(join(folder, 'export.json'));
    const skipped = await readJson(join(dir, 'gguf.skipped.json'));
    const modelfile = await stat(join(folder, MODELFILE)).catch(() => null);
    const archives = await Promise.all(
      ARCHIVE_KINDS.map(async (kind) => {
        const path = join(dir, ARCHIVE_FOLDERS[kind]);
        const files = await archiveFiles(kind, path);
        const check = await archiveCheck(kind, path);
        return runArchive(record, kind, archiveFolder(path, files, check), () =>
          zipSize(id, kind, files ?? []),
        );
      }),
    );
    try {
      return {
        archives,
        gguf: ggufExports(
          record,
          {
            report,
            skipped,
            modelfileBytes: modelfile?.isFile() ? modelfile.size : null,
            writing: this.ggufWriting(id),
          },
          join(folder, 'export.json'),
        ),
      };
    } catch (error) {
      throw unreadable(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * The path of a file GET /runs/{id}/exports/gguf/{file} may send: only a name the run's
   * exports list (published GGUF files, the Modelfile), never a path joined from the request.
   */
  async exportFile(id: string, file: string): Promise<string> {
    if (this.registry.recordOf(id).state === 'running') throw wrongState(exportWhileRunning(id));
    const writing = this.ggufWriting(id);
    if (writing) throw wrongState(ggufBeingWritten(id, writing));
    const { gguf } = await this.exports(id);
    const name = downloadableNames(gguf).find((listed) => listed === file);
    if (!name) throw notFound(noExportFile(id, file));
    // Its real path must stay inside gguf/ (a symlink that leads out is a 404).
    return (await resolveModelFile(join(this.registry.recordOf(id).output_dir, 'gguf'), name)).path;
  }

  /**
   * What GET /runs/{id}/exports/archive/{kind} zips: the zip's name and the files; refused
   * (409) while the run runs, else (404) with the cause archiveRefusal names (the folder
   * deleted, a full fine-tune's adapter, no model in merged/).
   */
  async exportArchive(id: string, kind: ArchiveKind) {
    const record = this.registry.recordOf(id);
    const path = join(record.output_dir, ARCHIVE_FOLDERS[kind]);
    const files = await archiveFiles(kind, path);
    const check = await archiveCheck(kind, path);
    const refusal = archiveRefusal(record, kind, archiveFolder(path, files, check));
    if (refusal !== null)
      throw record.state === 'running' ? wrongState(refusal) : notFound(refusal);
    return { name: `${archiveStem(id, kind)}.zip`, files: files ?? [] };
  }
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** A JSON file's value; null when it does not exist; unreadable when it is not JSON. */
async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    throw unreadable(
      `${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
