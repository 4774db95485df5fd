/**
 * The datasets of mock mode, with the interface the service's DatasetStore gives its route
 * (`DatasetsDomain`, src/shared/service-domain.ts): kept in memory under the path the service
 * answers, so a run naming that path as its data file trains on them.
 */
import type { DatasetsDomain } from '../../src/shared/service-domain';
import {
  asPromptCompletion,
  type DatasetEntry,
  type DatasetResponse,
  type TrainingEntry,
} from '../../src/shared/training-api';

export class FakeDatasets implements DatasetsDomain {
  private readonly files = new Map<string, DatasetEntry[]>();

  /** Kept as the service reads a data file back: a conversation as its last exchange. */
  save(name: string, entries: TrainingEntry[]): Promise<DatasetResponse> {
    const path = `service-data/datasets/${name.replace(/\.json$/, '')}.json`;
    this.files.set(path, entries.map(asPromptCompletion));
    return Promise.resolve({ path, entries: entries.length });
  }

  /** The entries stored under a data file's path, if any. */
  entriesOf(path: string): DatasetEntry[] | undefined {
    return this.files.get(path);
  }

  clear(): void {
    this.files.clear();
  }
}
