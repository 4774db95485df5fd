/**
 * The inspector's state while the panel is open: subscribes to the bus, keeps a bounded,
 * time-ordered event log with high-frequency events collapsed into counts, and tells React at
 * most once per animation frame. Framework-free so it can be benchmarked and unit-tested.
 */
import type { AnyEventObject, InspectionEvent, StateValue } from 'xstate';
import { getRoots, subscribe } from './bus';
import { actorLabel, buildActorTree, type ActorNode, type InspectedRef } from './actor-tree';
import { eventKey, summarizePayload } from './summarize';
import { isRecord } from '../shared/guards';

/**
 * Events that arrive per token or per download chunk, or as the worker's heartbeat: shown as one
 * row with a count. A heartbeat is high-frequency too, so one that arrives during a reply does not
 * cut the reply's tokens into several rows.
 */
export const HIGH_FREQUENCY = new Set([
  'worker.update',
  'worker.progress',
  'worker.alive',
  'chat.input',
  'worker.message(update)',
  'worker.message(progress)',
  'worker.message(alive)',
]);

export interface LogEntry {
  seq: number;
  /** ms since the page loaded, of the first and the last event in the row. */
  time: number;
  lastTime: number;
  type: string;
  key: string;
  summary: string;
  source: string | null;
  target: string;
  targetSession: string;
  /** The target's state after the (last) event, when it is a machine. */
  state: StateValue | undefined;
  count: number;
}

export interface InspectorStoreOptions {
  /** Rows kept (oldest dropped). */
  limit?: number;
  highFrequency?: ReadonlySet<string>;
  /** How a change is announced (default: next animation frame). */
  schedule?: (flush: () => void) => void;
}

/** Its functions are plain closures: they can be passed around unbound. */
export interface InspectorStore {
  subscribe: (listener: () => void) => () => void;
  /** Changes whenever something shown changed (for useSyncExternalStore). */
  getVersion: () => number;
  getLog: () => readonly LogEntry[];
  getTree: () => readonly ActorNode[];
  /** Total events seen since opening (collapsed ones included). */
  getEventCount: () => number;
  clearLog: () => void;
  dispose: () => void;
}

/** A machine snapshot's `value`: a state name, or a map of regions to their values. */
function isStateValue(value: unknown): value is StateValue {
  if (typeof value === 'string') return true;
  return isRecord(value) && Object.values(value).every((v) => v === undefined || isStateValue(v));
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

function defaultSchedule(flush: () => void) {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush);
  else setTimeout(flush, 16);
}

export function createInspectorStore(options: InspectorStoreOptions = {}): InspectorStore {
  const limit = options.limit ?? 400;
  const highFrequency = options.highFrequency ?? HIGH_FREQUENCY;
  const schedule = options.schedule ?? defaultSchedule;
  const listeners = new Set<() => void>();
  let log: LogEntry[] = [];
  let tree: ActorNode[] = buildActorTree(getRoots());
  let version = 0;
  let seq = 0;
  let eventCount = 0;
  let scheduled = false;
  let treeDirty = false;
  /** Open rows of high-frequency events, by key and target. */
  const runs = new Map<string, LogEntry>();
  /** The row each event went into, to fill in the resulting state. */
  const rowOfEvent = new WeakMap<AnyEventObject, LogEntry>();

  const flush = () => {
    scheduled = false;
    if (treeDirty) {
      tree = buildActorTree(getRoots());
      treeDirty = false;
    }
    version += 1;
    for (const listener of listeners) listener();
  };
  const changed = () => {
    if (scheduled) return;
    scheduled = true;
    schedule(flush);
  };

  const onEvent = (
    event: AnyEventObject,
    target: InspectedRef,
    source: InspectedRef | undefined,
  ) => {
    eventCount += 1;
    const key = eventKey(event);
    const runKey = `${key}\u0000${target.sessionId}`;
    if (highFrequency.has(key)) {
      const run = runs.get(runKey);
      if (run) {
        run.count += 1;
        run.lastTime = now();
        rowOfEvent.set(event, run);
        return changed();
      }
    } else {
      // Any other event to this actor ends its runs, so the log stays in time order.
      for (const [k, row] of runs) if (row.targetSession === target.sessionId) runs.delete(k);
    }
    const time = now();
    const row: LogEntry = {
      seq: seq++,
      time,
      lastTime: time,
      type: event.type,
      key,
      summary: summarizePayload(event),
      source: source ? actorLabel(source) : null,
      target: actorLabel(target),
      targetSession: target.sessionId,
      state: undefined,
      count: 1,
    };
    if (highFrequency.has(key)) runs.set(runKey, row);
    rowOfEvent.set(event, row);
    log.push(row);
    if (log.length > limit + 50) {
      const dropped = log.splice(0, log.length - limit);
      for (const d of dropped)
        if (runs.get(`${d.key}\u0000${d.targetSession}`) === d)
          runs.delete(`${d.key}\u0000${d.targetSession}`);
    }
    changed();
  };

  const onInspection = (ev: InspectionEvent) => {
    switch (ev.type) {
      case '@xstate.event':
        onEvent(ev.event, ev.actorRef, ev.sourceRef);
        break;
      case '@xstate.snapshot': {
        const row = rowOfEvent.get(ev.event);
        if (row && row.targetSession === ev.actorRef.sessionId) {
          const value = 'value' in ev.snapshot ? ev.snapshot.value : undefined;
          if (isStateValue(value)) row.state = value;
        }
        treeDirty = true;
        changed();
        break;
      }
      case '@xstate.actor':
        treeDirty = true;
        changed();
        break;
      default:
        break;
    }
  };

  // Listens to the bus only while someone listens to the store (StrictMode-safe, no leak).
  let unsubscribe: (() => void) | null = null;
  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!unsubscribe) {
        unsubscribe = subscribe(onInspection);
        treeDirty = true;
        changed();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          unsubscribe?.();
          unsubscribe = null;
        }
      };
    },
    getVersion: () => version,
    getLog: () => (log.length > limit ? log.slice(-limit) : log),
    getTree: () => tree,
    getEventCount: () => eventCount,
    clearLog() {
      log = [];
      runs.clear();
      version += 1;
      for (const listener of listeners) listener();
    },
    dispose() {
      unsubscribe?.();
      unsubscribe = null;
      listeners.clear();
    },
  };
}
