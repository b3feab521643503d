import { liveEndpoint, type EndpointInfo } from '../warehouse/embedded/index.ts';
import type { QueryRunner } from '../warehouse/query-access.ts';

/**
 * What `tapehouse status` says: the running job's live figures (read from its /metrics), or,
 * when none runs on the data directory, the last run's summary from the warehouse.
 */
export async function liveStatus(dataDir: string): Promise<string | null> {
  const endpoint = await liveEndpoint(dataDir);
  if (!endpoint) return null;
  const response = await fetch(`${endpoint.url}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  return figuresReport(
    await response.text(),
    `tapehouse run is running (pid ${endpoint.pid}, since ${endpoint.started_at}); endpoint ${endpoint.url}`,
  );
}

/**
 * `tapehouse status --metrics-url URL`: the live figures of any process serving /metrics (a
 * scale-out `capture`, `load` or `worker`, or `run`), read from it. A process that does not
 * answer is an error (exit 1), named with its address.
 */
export async function metricsUrlStatus(url: string): Promise<string> {
  const target = new URL(url);
  if (target.pathname === '/' || target.pathname === '') target.pathname = '/metrics';
  const response = await fetch(target, { signal: AbortSignal.timeout(10_000) }).catch((error: unknown) => {
    throw new Error(`${target.href} does not answer: ${(error as Error).message}`);
  });
  if (!response.ok) throw new Error(`${target.href} answered ${response.status}`);
  return figuresReport(await response.text(), `the process at ${target.href} serves:`);
}

/** The figures of a /metrics text, the series a process does not serve left out. */
function figuresReport(text: string, heading: string): string {
  const metrics = parsePrometheus(text);
  const served = new Set(metrics.map((m) => m.name));
  const total = (name: string) => metrics.filter((m) => m.name === name).reduce((sum, m) => sum + m.value, 0);
  const line = (label: string, name: string) => (served.has(name) ? [`${label.padEnd(18)}${total(name)}`] : []);
  const rows = metrics
    .filter((m) => m.name === 'tapehouse_rows_loaded_total')
    .sort((a, b) => b.value - a.value)
    .map((m) => `  ${m.labels.table?.padEnd(24)} ${m.value}`);
  const answers = (cls: string) =>
    metrics
      .filter((m) => m.name === 'tapehouse_venue_answers_total' && m.labels.class === cls)
      .reduce((s, m) => s + m.value, 0);
  const troubles = metrics
    .filter(
      (m) =>
        (m.name === 'tapehouse_venue_unreachable_since_seconds' ||
          m.name === 'tapehouse_loader_failing_since_seconds' ||
          m.name === 'tapehouse_stream_unavailable_since_seconds') &&
        m.value > 0,
    )
    .map((m) => {
      const since = new Date(m.value * 1000).toISOString();
      if (m.name === 'tapehouse_stream_unavailable_since_seconds')
        return `STREAM NOT OFFERED since ${since}: ${m.labels.stream ?? ''} (asked again later)`;
      return m.name === 'tapehouse_venue_unreachable_since_seconds'
        ? `VENUE UNREACHABLE since ${since}: ${m.labels.reason ?? ''}`
        : `LOADER FAILING since ${since}: ${m.labels.reason ?? ''} (what it holds is not stored; a stop now ends with exit code 1)`;
    });
  return [
    heading,
    ...troubles,
    ...line('frames received', 'tapehouse_frames_total'),
    ...line('reconnects', 'tapehouse_reconnects_total'),
    ...line('429s earned', 'tapehouse_http_429_total'),
    ...(served.has('tapehouse_venue_answers_total')
      ? [`${'venue answers'.padEnd(18)}429: ${answers('429')}, 5xx: ${answers('5xx')}`]
      : []),
    ...line('cursor loops', 'tapehouse_cursor_loops_total'),
    ...line('bus lag (records)', 'tapehouse_bus_lag_records'),
    ...line('open gaps', 'tapehouse_open_gaps'),
    ...line('dead letters', 'tapehouse_dead_letters_total'),
    ...(served.has('tapehouse_rows_loaded_total') ? ['rows loaded:', ...rows] : []),
    ...jobLines(metrics),
  ].join('\n');
}

/** The worker's per-job figures: runs, failures, the last success. */
function jobLines(metrics: Sample[]): string[] {
  const runs = metrics.filter((m) => m.name === 'tapehouse_sync_job_runs_total');
  if (runs.length === 0) return [];
  const of = (name: string, job: string) => metrics.find((m) => m.name === name && m.labels.job === job)?.value ?? 0;
  return [
    'sync jobs (runs, failed, last success):',
    ...runs
      .sort((a, b) => (a.labels.job ?? '').localeCompare(b.labels.job ?? ''))
      .map((m) => {
        const job = m.labels.job ?? '';
        const last = of('tapehouse_sync_job_last_success_seconds', job);
        return `  ${job.padEnd(24)} ${m.value}, ${of('tapehouse_sync_job_failures_total', job)}, ${last > 0 ? new Date(last * 1000).toISOString() : '-'}`;
      }),
  ];
}

/**
 * What the warehouse holds: the last run's summary, or — when a process without live figures
 * holds the directory (`tapehouse load`) — what it has loaded so far. Times of empty tables are
 * "-", not the epoch.
 */
export async function storedStatus(runner: QueryRunner, holder?: EndpointInfo): Promise<string> {
  const newest = (column: string, table: string) =>
    `(SELECT if(count() = 0, NULL, max(${column})) FROM tapehouse.${table})`;
  const text = (
    await runner.run(
      `SELECT
         ${newest('sampled_at', 'pipeline_health')} AS last_sample,
         (SELECT sum(row_count) FROM tapehouse.loader_offsets WHERE state = 'after') AS rows_loaded,
         (SELECT count() FROM tapehouse.dead_letters) AS dead_letters,
         (SELECT count() FROM tapehouse.capture_gaps) AS gaps,
         ${newest('gap_end', 'capture_gaps')} AS last_gap_end,
         ${newest('executed_at', 'trades')} AS last_trade`,
      'JSONEachRow',
    )
  ).toString('utf8');
  const row = JSON.parse(text.trim() || '{}') as Record<string, string>;
  return [
    holder
      ? `a tapehouse process without live figures (tapehouse load) holds this data directory (pid ${holder.pid}, since ${holder.started_at}; reads at ${holder.url}); the warehouse holds:`
      : 'no tapehouse run holds this data directory; the last run left:',
    `last figures sampled  ${row.last_sample ?? '-'}`,
    `newest trade          ${row.last_trade ?? '-'}`,
    `rows loaded           ${row.rows_loaded ?? 0}`,
    `capture gaps          ${row.gaps ?? 0} (newest ends ${row.last_gap_end ?? '-'})`,
    `dead letters          ${row.dead_letters ?? 0}`,
  ].join('\n');
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The few lines of the Prometheus text format we read back: `name{a="b"} value`. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
