/**
 * The log and metric stores of runs: the active run's own, and those of ended runs loaded from
 * disk on first read and kept for the most recently read few (an LRU), so polling a finished run
 * does not re-read its files.
 */
import { LOG_TAIL } from '../../src/shared/training-api';
import { lastStepCountInLines } from '../../src/shared/training-progress';
import { LogStore } from './log-store';
import { MetricsStore } from './metrics';
import { noteProgress, type ActiveRun } from './run-process';
import type { RunRegistry } from './run-registry';

/** How many ended runs keep their stores loaded. */
const KEEP_LOADED = 8;

export type Stores = [LogStore, MetricsStore];

export class RunStores {
  /** Stores of runs that ended, most recently used last. */
  private readonly loaded = new Map<string, Promise<Stores>>();

  constructor(
    private readonly registry: RunRegistry,
    private readonly ringLines: number,
    private readonly active: () => ActiveRun | null,
  ) {}

  /** Reads the run's log and metrics file from disk (not cached). */
  load(id: string): Promise<Stores> {
    return Promise.all([
      LogStore.load(this.registry.logOf(id), this.ringLines),
      MetricsStore.load(this.registry.metricsOf(id)),
    ]);
  }

  /** The run's stores: the active run's, a cached pair, or a pair loaded now and cached. */
  of(id: string): Promise<Stores> {
    const active = this.active();
    if (active?.record.id === id) return Promise.resolve([active.store, active.metrics]);
    const cached = this.loaded.get(id);
    if (cached) {
      this.remember(id, cached);
      return cached;
    }
    const loading = this.load(id);
    this.remember(id, loading);
    void loading.then(([store]) => {
      // A record saved before its progress was known gets it from its log.
      const record = this.registry.find(id);
      if (record && record.current === null)
        noteProgress(record, lastStepCountInLines(store.tail(LOG_TAIL)));
    });
    return loading;
  }

  /** Keeps the stores of a run that ended, dropping the least recently used past the limit. */
  remember(id: string, stores: Promise<Stores>): void {
    this.loaded.delete(id);
    this.loaded.set(id, stores);
    while (this.loaded.size > KEEP_LOADED) {
      const oldest = this.loaded.keys().next().value;
      if (oldest === undefined) break;
      this.loaded.delete(oldest);
    }
  }

  /** The run goes on (a resume): its stores are the active run's again. */
  forget(id: string): void {
    this.loaded.delete(id);
  }
}
