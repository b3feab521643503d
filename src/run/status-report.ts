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
  const metrics = parsePrometheus(await response.text());
  const total = (name: string) => metrics.filter((m) => m.name === name).reduce((sum, m) => sum + m.value, 0);
  const rows = metrics
    .filter((m) => m.name === 'tapehouse_rows_loaded_total')
    .sort((a, b) => b.value - a.value)
    .map((m) => `  ${m.labels.table?.padEnd(24)} ${m.value}`);
  const troubles = metrics
    .filter(
      (m) =>
        (m.name === 'tapehouse_venue_unreachable_since_seconds' ||
          m.name === 'tapehouse_loader_failing_since_seconds') &&
        m.value > 0,
    )
    .map((m) => {
      const since = new Date(m.value * 1000).toISOString();
      return m.name === 'tapehouse_venue_unreachable_since_seconds'
        ? `VENUE UNREACHABLE since ${since}: ${m.labels.reason ?? ''}`
        : `LOADER FAILING since ${since}: ${m.labels.reason ?? ''} (what it holds is not stored; a stop now ends with exit code 1)`;
    });
  return [
    `tapehouse run is running (pid ${endpoint.pid}, since ${endpoint.started_at}); endpoint ${endpoint.url}`,
    ...troubles,
    `frames received   ${total('tapehouse_frames_total')}`,
    `reconnects        ${total('tapehouse_reconnects_total')}`,
    `429s earned       ${total('tapehouse_http_429_total')}`,
    `bus lag (records) ${total('tapehouse_bus_lag_records')}`,
    `open gaps         ${total('tapehouse_open_gaps')}`,
    `dead letters      ${total('tapehouse_dead_letters_total')}`,
    'rows loaded:',
    ...rows,
  ].join('\n');
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
