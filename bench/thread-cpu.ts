import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of this process by thread kind (Linux: /proc/self/task), in ms: the JS thread, the
 * engine's merges, the engine's other pools, and the rest (libuv workers, where chDB runs a
 * query, and V8's garbage-collector helpers). Empty where /proc is not there.
 */
export type ThreadCpu = Map<string, number>;

const TICK_MS = 10; // USER_HZ is 100 on Linux

function kindOf(tid: string, name: string): string {
  if (tid === String(process.pid)) return 'JS thread';
  if (name.startsWith('MergeMutate')) return 'engine merges';
  if (name === 'node' || name.startsWith('libuv')) return 'queries and GC helpers';
  return 'engine, other';
}

/** utime + stime of a /proc `stat` line (a process's or a thread's), in ms. */
export function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

export function threadCpu(): ThreadCpu {
  const byKind: ThreadCpu = new Map();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byKind;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ms = cpuMsOfStat(stat);
    const kind = kindOf(tid, name);
    byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
  }
  return byKind;
}

/** What each kind of thread spent between two readings, largest first: "JS thread 650 ms, …". */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu = threadCpu()): string {
  return [...after]
    .map(([kind, ms]) => [kind, ms - (before.get(kind) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${ms} ms`)
    .join(', ');
}
