/**
 * CPU time of a process tree, from Linux's /proc: the user and system time of every live process
 * descending from `root` (its threads included, as /proc/<pid>/stat sums them). The speed bench
 * reads it around each reply, so the work a reply cost the whole browser (renderer, worker, GPU
 * process with SwiftShader's threads) can be compared between the app and the plain page,
 * whatever else the machine was doing. Null where /proc is not there.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ): 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime, in ticks. */
  ticks: number;
}

function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields after its ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // After the name: state(3) ppid(4) … utime(14) stime(15), so ppid is [1], utime [11], stime [12].
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null; // the process ended between the listing and the read
  }
}

/** The live descendants of `root` (not `root` itself), from /proc. */
function descendants(root: number): Map<number, Stat> {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found = new Map<number, Stat>();
  const pending = [...(children.get(root) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const stat = stats.get(pid);
    if (stat) found.set(pid, stat);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** CPU seconds used so far by the live descendants of `root` (not `root` itself). */
export function descendantCpuSeconds(root: number = process.pid): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  let ticks = 0;
  for (const { ticks: t } of descendants(root).values()) ticks += t;
  return ticks / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by each live thread of `root`'s descendants, summed by
 * "process type/thread name" (Chromium's `--type`, "browser" without one; e.g. "renderer/chromium"
 * is a renderer's main thread, "renderer/DedicatedWorker" a page's worker, "gpu-process/…" the
 * GPU process with SwiftShader's threads). Null where /proc is not there.
 */
export function threadCpuSeconds(root: number = process.pid): Map<string, number> | null {
  if (!existsSync('/proc/self/stat')) return null;
  const byThread = new Map<string, number>();
  for (const pid of descendants(root).keys()) {
    let type = 'browser';
    let tids: string[] = [];
    try {
      type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? type;
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // the process ended meanwhile
    }
    for (const tid of tids) {
      try {
        const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
        const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
        const key = `${type}/${name}`;
        const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
        byThread.set(key, (byThread.get(key) ?? 0) + seconds);
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return byThread;
}
