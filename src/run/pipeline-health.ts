import type { InsertRow } from '../warehouse/insert/index.ts';
import { increase, type PipelineFigures } from './figures.ts';

/**
 * Rows of `pipeline_health` for one sample: counters as their increase since the previous
 * sample (so a restart needs no reset handling and sum() over any window is the count in it),
 * gauges as their value. Shape: sql/0080_pipeline_health.sql, read by dashboards/pipeline-health.json.
 */
export function healthRows(
  before: PipelineFigures,
  now: PipelineFigures,
  sampledAtMs: number,
  intervalMs: number,
): InsertRow[] {
  const rows: InsertRow[] = [];
  const at = new Date(sampledAtMs);
  const add = (component: string, metric: string, values: Record<string, number>) => {
    for (const [subject, value] of Object.entries(values)) {
      rows.push({ sampled_at: at, component, subject, metric, value, interval_ms: intervalMs });
    }
  };
  add('capture', 'frames', increase(before.frames, now.frames));
  add('capture', 'reconnects', increase(before.reconnects, now.reconnects));
  for (const [component, value] of Object.entries(increase(before.http429, now.http429))) {
    rows.push({ sampled_at: at, component, subject: component, metric: 'http_429', value, interval_ms: intervalMs });
  }
  add('loader', 'rows', increase(before.rowsLoaded, now.rowsLoaded));
  add('sync', 'cursor_loops', increase(before.cursorLoops ?? {}, now.cursorLoops));
  add('loader', 'lag_records', now.lagRecords);
  rows.push({
    sampled_at: at,
    component: 'loader',
    subject: 'all',
    metric: 'dead_letters',
    value: Math.max(0, now.deadLetters - before.deadLetters),
    interval_ms: intervalMs,
  });
  rows.push({
    sampled_at: at,
    component: 'capture',
    subject: 'all',
    metric: 'open_gaps',
    value: now.openGaps,
    interval_ms: intervalMs,
  });
  rows.push({
    sampled_at: at,
    component: 'venue',
    subject: 'all',
    metric: 'venue_unreachable',
    value: now.venueUnreachable ? 1 : 0,
    interval_ms: intervalMs,
  });
  rows.push({
    sampled_at: at,
    component: 'loader',
    subject: 'all',
    metric: 'loader_failing',
    value: now.loaderFailing ? 1 : 0,
    interval_ms: intervalMs,
  });
  return rows;
}
