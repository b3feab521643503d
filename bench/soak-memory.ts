/**
 * Memory over a long run: `tapehouse run` on a fresh data directory at rate 20 (the default) for
 * N minutes (default 60), sampling each minute the resident memory (RSS, from /proc) and the live
 * JS heap (from /metrics) of the job and of its built-in venue, which runs in a process of its own.
 * After a warm-up (default the first 10 minutes) it fits a line to each series and prints the slope
 * as MiB per hour and as a share of the series' fitted level at the end of the warm-up — the
 * denominator of "flat": the aim is RSS ≤ 600 MiB and ≤ 5 % per hour after the first 10 minutes.
 * To say where the job's memory is, it also samples V8's committed heap and, through the job's
 * endpoint, chDB's own allocator (a jemalloc inside libchdb, set by the JE_MALLOC_CONF variable):
 * live, resident and dirty bytes, and the engine's MemoryTracking.
 *
 *   npx tsx bench/soak-memory.ts [--minutes 60] [--rate 20] [--warmup 10]
 *   TAPEHOUSE_SOAK_MINUTES=5 npm run bench -- soak-memory
 *   JE_MALLOC_CONF=dirty_decay_ms:5000 npx tsx bench/soak-memory.ts   (chDB's allocator as built, not
 *   tapehouse's default: see src/warehouse/embedded/chdb-allocator.ts)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMsOfStat } from './thread-cpu.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const minutes = Number(option('minutes', process.env.TAPEHOUSE_SOAK_MINUTES ?? '60'));
const rate = Number(option('rate', '20'));
const warmup = Math.min(Number(option('warmup', '10')), Math.floor(minutes / 2));
const root = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

interface Sample {
  minute: number;
  jobRss: number;
  /** CPU seconds the job has used since it started (all its threads: JS, chDB's queries, merges and allocator). */
  jobCpu: number;
  jobHeap: number;
  venueRss: number;
  venueHeap: number;
  rows: number;
  lag: number;
  load: number;
  /** V8's committed heap (used and free), and chDB's allocator: live, resident, dirty (freed, not yet returned) and the
   * engine's own tracked total. */
  heapTotal: number;
  engine: EngineMemory;
}

interface EngineMemory {
  allocated: number;
  resident: number;
  dirty: number;
  tracked: number;
}

const dataDir = mkdtempSync(join(tmpdir(), 'tapehouse-soak-'));
const job = spawn(
  process.execPath,
  [
    join(root, 'bin/tapehouse.js'),
    'run',
    '--data-dir',
    dataDir,
    '--http-port',
    '0',
    '--rate',
    String(rate),
    '--status',
    'off',
  ],
  {
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let out = '';
job.stdout!.on('data', (c: Buffer) => (out += c.toString()));
const started = Date.now();
const endpoint = await until(() => /endpoint:\s+(http:\/\/\S+)/.exec(out)?.[1]);
const venuePid = Number(readFileSync(join(dataDir, 'venue', 'state.json.lock'), 'utf8'));
console.log(
  `tapehouse run (pid ${job.pid}, venue pid ${venuePid}) at rate ${rate} for ${minutes} min; data in ${dataDir}`,
);
console.log(
  `chDB's allocator (jemalloc, inside libchdb) set by JE_MALLOC_CONF: ${process.env.JE_MALLOC_CONF ?? "(not set: tapehouse's default, see src/warehouse/embedded/chdb-allocator.ts)"}`,
);
console.log(
  'minute   job RSS  job heap   venue RSS  venue heap   total RSS   rows loaded   bus lag   load  heap total  eng alloc  eng res  eng dirty  eng tracked  job CPU',
);
console.log(
  "         (MiB; bus lag: records on the bus not loaded yet, a backlog the job holds in memory; load: the machine's 1-minute load average;\n" +
    "          heap total: V8's committed heap; eng: chDB's allocator — alloc live, res resident, dirty freed but not yet given back — and tracked, the engine's MemoryTracking;\n" +
    '          job CPU: the share of one core the job used over the minute before)',
);

const samples: Sample[] = [];
for (let minute = 0; minute <= minutes; minute++) {
  await new Promise((r) => setTimeout(r, Math.max(0, started + minute * 60_000 - Date.now())));
  const metrics = await fetch(`${endpoint}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const s: Sample = {
    minute,
    jobRss: rssOf(job.pid!),
    jobCpu: cpuSecondsOf(job.pid!),
    jobHeap: metric(metrics, 'nodejs_heap_size_used_bytes'),
    venueRss: rssOf(venuePid),
    venueHeap: metric(metrics, 'tapehouse_venue_memory_bytes{kind="heap_used"}'),
    rows: sum(metrics, 'tapehouse_rows_loaded_total'),
    lag: sum(metrics, 'tapehouse_bus_lag_records'),
    load: loadavg()[0]!,
    heapTotal: metric(metrics, 'nodejs_heap_size_total_bytes'),
    engine: await engineMemory(endpoint),
  };
  samples.push(s);
  console.log(
    `${String(minute).padStart(6)} ${mib(s.jobRss).padStart(9)} ${mib(s.jobHeap).padStart(9)} ${mib(s.venueRss).padStart(11)} ${mib(s.venueHeap).padStart(11)} ${mib(s.jobRss + s.venueRss).padStart(11)} ${String(s.rows).padStart(13)} ${String(s.lag).padStart(9)} ${s.load.toFixed(1).padStart(6)}` +
      ` ${mib(s.heapTotal).padStart(10)} ${mib(s.engine.allocated).padStart(9)} ${mib(s.engine.resident).padStart(9)} ${mib(s.engine.dirty).padStart(7)} ${mib(s.engine.tracked).padStart(8)}` +
      ` ${cpuShare(s, samples[samples.length - 2]).padStart(8)}`,
  );
}
job.kill('SIGINT');
const code = await new Promise<number | null>((resolve) => job.once('exit', resolve));
rmSync(dataDir, { recursive: true, force: true });

const after = samples.filter((s) => s.minute >= warmup);
console.log(
  `\nafter the first ${warmup} min (${after.length} samples); slope = least-squares line through the samples, "% per hour" of its value at minute ${warmup}:`,
);
for (const [name, read] of [
  ['job RSS', (s: Sample) => s.jobRss],
  ['job heap', (s: Sample) => s.jobHeap],
  ['venue RSS', (s: Sample) => s.venueRss],
  ['venue heap', (s: Sample) => s.venueHeap],
  ['total RSS', (s: Sample) => s.jobRss + s.venueRss],
  ['heap total', (s: Sample) => s.heapTotal],
  ['eng alloc', (s: Sample) => s.engine.allocated],
  ['eng res', (s: Sample) => s.engine.resident],
  ['eng dirty', (s: Sample) => s.engine.dirty],
  ['eng tracked', (s: Sample) => s.engine.tracked],
] as const) {
  const { slopePerMinute, at } = fit(after.map((s) => [s.minute, read(s)]));
  const level = at(warmup);
  const peak = Math.max(...samples.map(read));
  console.log(
    `  ${name.padEnd(10)} ${((slopePerMinute * 60) / MiB).toFixed(1).padStart(7)} MiB/h  = ${((slopePerMinute * 60 * 100) / level).toFixed(1).padStart(6)} % per hour of ${mib(level)} MiB; peak ${mib(peak)} MiB`,
  );
}
const peakTotal = Math.max(...samples.map((s) => s.jobRss + s.venueRss));
const perHourOf = (read: (s: Sample) => number) => {
  const line = fit(after.map((s) => [s.minute, read(s)]));
  return (line.slopePerMinute * 60 * 100) / line.at(warmup);
};
// The aim is the pipeline's: the job's own RSS. The venue (the simulator, a stand-in for the real
// venue) is printed beside it, never summed into the figure judged: its falling heap would hide the job's growth.
console.log(
  `\naims, judged on the job (the pipeline; the venue is the simulator standing in for the real one): ` +
    `RSS ≤ 600 MiB — peak ${mib(Math.max(...samples.map((s) => s.jobRss)))} MiB; ` +
    `flat (≤ 5 % per hour after ${warmup} min) — ${perHourOf((s) => s.jobRss).toFixed(1)} % per hour. ` +
    `Beside it, job + venue: peak ${mib(peakTotal)} MiB, ${perHourOf((s) => s.jobRss + s.venueRss).toFixed(1)} % per hour. ` +
    (minutes < 60 ? `A ${minutes}-minute run only hints at the hourly slope.` : ''),
);
const last = samples[samples.length - 1]!;
const afterWarmup = samples.find((s) => s.minute === warmup) ?? samples[0]!;
console.log(
  `job CPU: ${(last.jobCpu / 60).toFixed(1)} CPU-minutes in ${last.minute} min; after the warm-up ${cpuShare(last, afterWarmup)} of one core on average`,
);
const loads = samples.map((s) => s.load);
console.log(
  `machine load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${cpus().length} cores during the run; tapehouse run exited ${code}`,
);

/** chDB's allocator and tracked memory, through the job's endpoint (zeros if it does not answer). */
async function engineMemory(url: string): Promise<EngineMemory> {
  const sql = async (query: string) => {
    const response = await fetch(`${url}/?default_format=TabSeparatedRaw`, { method: 'POST', body: query });
    return response.ok ? response.text() : '';
  };
  try {
    const stats = await sql('SELECT * FROM system.jemalloc_stats');
    const totals = /Allocated: (\d+), active: \d+, metadata: \d+.*?, resident: (\d+)/.exec(stats);
    const dirtyPages = /^\s+dirty:\s+N\/A\s+(\d+)/m.exec(stats);
    const tracked = await sql("SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'");
    return {
      allocated: Number(totals?.[1] ?? 0),
      resident: Number(totals?.[2] ?? 0),
      dirty: Number(dirtyPages?.[1] ?? 0) * 4096,
      tracked: Number(tracked.trim() || 0),
    };
  } catch {
    return { allocated: 0, resident: 0, dirty: 0, tracked: 0 };
  }
}

/** The share of one core the job used between two samples ("–" for the first). */
function cpuShare(now: Sample, before: Sample | undefined): string {
  return before ? `${Math.round(((now.jobCpu - before.jobCpu) * 100) / ((now.minute - before.minute) * 60))} %` : '–';
}

/** utime + stime of a process, in seconds. */
function cpuSecondsOf(pid: number): number {
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) / 1000;
  } catch {
    return 0;
  }
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** One series of the Prometheus text (name with its labels, as printed). */
function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

function sum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

function fit(points: Array<[number, number]>): { slopePerMinute: number; at: (minute: number) => number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slopePerMinute: slope, at: (minute) => my + slope * (minute - mx) };
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(0);
}

async function until<T>(check: () => T | undefined): Promise<T> {
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (job.exitCode !== null) throw new Error(`tapehouse run exited ${job.exitCode}:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
