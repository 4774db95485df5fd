/**
 * Every process of a run, tracked through /proc so that ending a run reaches all of them: the
 * launcher, its workers, their data-loader children, processes that called setsid() and processes
 * re-parented to init after their parent died. Each is recorded as (pid, start time), the start
 * time being field 22 of /proc/<pid>/stat (clock ticks since boot); a pid is only ever signalled
 * while its start time still matches, so a reused pid is never hit.
 *
 * A process belongs to the run when it started no earlier than the run's first process and
 *  - its parent is a recorded process of the run, or
 *  - it is in the run's process group or session (the launcher is a session leader), or
 *  - its environment carries the run's marker (RUN_MARKER=<run id>), which children inherit and
 *    which survives re-parenting and setsid(), so even a process whose parent exited before a scan
 *    saw it is found.
 * Why not a cgroup: creating one needs a writable, delegated cgroup hierarchy (root or systemd
 * delegation), which neither this container nor a typical desktop session gives a user process.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** The environment variable every run's processes inherit. */
export const RUN_MARKER = 'LLM_STUDIO_RUN_ID';

export interface ProcEntry {
  pid: number;
  /** /proc/<pid>/stat field 22. */
  start: number;
}

interface Stat extends ProcEntry {
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
}

/** Parses /proc/<pid>/stat; null when the process is gone. */
export function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = Number(rest[19]);
  if (!Number.isFinite(start)) return null;
  return {
    pid,
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    session: Number(rest[3]),
    start,
  };
}

/** A zombie has exited; only its parent's wait() is missing. */
const gone = (stat: Stat | null) => stat === null || stat.state === 'Z' || stat.state === 'X';

/** Alive and still the same process (same start time). */
export function isAlive(entry: ProcEntry): boolean {
  const stat = readStat(entry.pid);
  return !gone(stat) && stat?.start === entry.start;
}

function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
  } catch {
    return false; // another user's process, or gone
  }
}

export const procAvailable = (() => {
  try {
    return readStat(process.pid) !== null;
  } catch {
    return false;
  }
})();

export class ProcessTree {
  /** Every process of the run ever seen, alive or not: pid → start time. */
  private readonly known = new Map<number, number>();
  /** Processes checked and found not to be the run's ("pid:start"). */
  private readonly foreign = new Set<string>();
  private readonly marker: string;
  private rootStart = 0;
  private readonly signalled = new Set<string>();

  constructor(
    runId: string,
    private rootPid: number | null = null,
    recorded: readonly ProcEntry[] = [],
  ) {
    this.marker = `${RUN_MARKER}=${runId}`;
    for (const entry of recorded) this.known.set(entry.pid, entry.start);
    if (rootPid !== null) this.setRoot(rootPid);
    else if (recorded.length > 0) this.rootStart = Math.min(...recorded.map((e) => e.start));
  }

  /** The run's first process, right after spawn. */
  setRoot(pid: number): void {
    this.rootPid = pid;
    const stat = readStat(pid);
    if (stat) {
      this.known.set(pid, stat.start);
      this.rootStart = stat.start;
    }
  }

  /** Every (pid, start) recorded so far (for the run record on disk). */
  entries(): ProcEntry[] {
    return [...this.known].map(([pid, start]) => ({ pid, start }));
  }

  /** Looks through /proc for new processes of the run; returns true when it found any. */
  scan(): boolean {
    if (!procAvailable) return false;
    const stats: Stat[] = [];
    for (const pid of listPids()) {
      if (pid === process.pid) continue;
      const stat = readStat(pid);
      if (stat && stat.start >= this.rootStart) stats.push(stat);
    }
    let added = false;
    // Parents before children is not guaranteed by pid order: repeat until nothing new joins.
    for (let changed = true; changed;) {
      changed = false;
      for (const stat of stats) {
        if (this.known.get(stat.pid) === stat.start) continue;
        const key = `${stat.pid}:${stat.start}`;
        if (this.foreign.has(key) && !this.knownParent(stat)) continue;
        const ours =
          this.knownParent(stat) ||
          (this.rootPid !== null &&
            (stat.pgrp === this.rootPid || stat.session === this.rootPid)) ||
          hasMarker(stat.pid, this.marker);
        if (ours) {
          this.known.set(stat.pid, stat.start);
          this.foreign.delete(key);
          changed = added = true;
        } else this.foreign.add(key);
      }
    }
    return added;
  }

  private knownParent(stat: Stat): boolean {
    const parentStart = this.known.get(stat.ppid);
    return parentStart !== undefined && parentStart <= stat.start;
  }

  /** The recorded processes still alive (same pid and start time). */
  alive(): ProcEntry[] {
    return this.entries().filter(isAlive);
  }

  /**
   * Sends `signal` to every live process of the run (after a fresh scan), or with `onlyNew` to
   * those that have not had it yet; returns how many got it.
   */
  signal(signal: NodeJS.Signals, onlyNew = false): number {
    this.scan();
    let sent = 0;
    for (const entry of this.alive()) {
      const key = `${signal}:${entry.pid}:${entry.start}`;
      if (onlyNew && this.signalled.has(key)) continue;
      this.signalled.add(key);
      try {
        process.kill(entry.pid, signal);
        sent += 1;
      } catch {
        // ended between the check and the signal
      }
    }
    return sent;
  }
}

export const delay = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/**
 * Ends every process of the run: SIGTERM, then SIGKILL once `graceMs` has passed, scanning again
 * each round so processes started meanwhile get the same; resolves when none is left (true), or
 * false if some survive SIGKILL for `giveUpMs` more (a process stuck in the kernel).
 */
export async function endTree(
  tree: ProcessTree,
  graceMs: number,
  note: (line: string) => void,
  giveUpMs = 30_000,
): Promise<boolean> {
  const started = Date.now();
  const termed = tree.signal('SIGTERM');
  if (termed > 0) note(`[service] SIGTERM sent to ${termed} process${termed === 1 ? '' : 'es'}`);
  let killed = false;
  for (;;) {
    tree.scan();
    const left = tree.alive().length;
    if (left === 0) return true;
    const elapsed = Date.now() - started;
    if (elapsed >= graceMs) {
      if (!killed)
        note(`[service] ${left} still running ${graceMs} ms after SIGTERM: SIGKILL sent`);
      killed = true;
      tree.signal('SIGKILL');
      if (elapsed >= graceMs + giveUpMs) return false;
    } else tree.signal('SIGTERM', true);
    await delay(25);
  }
}
