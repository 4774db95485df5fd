/**
 * The model a succeeded run made: its browser-ready copy's model id (named after the output
 * folder, with the run's id added when another run already has that name), the base model's
 * export beside it, or why there is no copy.
 */
import { join } from 'node:path';
import { inspectWebFolder, modelId, modelName, readSkippedExport } from './models';
import type { RunRecord } from './run-records';

/** Sets the record's model_id and base_model_id, or its model_error; `others` are every run. */
export async function noteModel(record: RunRecord, others: readonly RunRecord[]): Promise<void> {
  let name = modelName(record.output_dir);
  const taken = others.some((r) => r.id !== record.id && r.model_id === modelId(name));
  if (taken) name = `${name}-${record.id.slice(0, 8)}`;
  const base = await inspectWebFolder(join(record.output_dir, 'base-web'));
  if (base.ok) record.base_model_id = modelId(`${name}-base`);
  const web = await inspectWebFolder(join(record.output_dir, 'web'));
  if (!web.ok) {
    // The trainer says why it did not export (an architecture the exporter lacks, a failed check).
    record.model_error = (await readSkippedExport(record.output_dir)) ?? web.reason;
    return;
  }
  record.model_id = modelId(name);
}
