import type { RunQuery } from './run-query.ts';
import type { TimeRange } from './time-range.ts';

/**
 * A dashboard's default time range fitted to what the warehouse holds. The files say "the last 24
 * hours" (Grafana's way); after five minutes of a first run that squeezes every series into the
 * last pixels. The viewer, when the range was not chosen, starts it where the data starts: the
 * first batch the loaders stored (`loader_offsets`, written by every loader, embedded or not).
 */
export const SHORTEST_FITTED_MS = 5 * 60_000;

const DATA_START_SQL = 'SELECT toUnixTimestamp64Milli(min(recorded_at)) AS start FROM tapehouse.loader_offsets';

/** Epoch ms of the first data the warehouse holds, or undefined while it holds none. */
export async function dataStartMs(run: RunQuery): Promise<number | undefined> {
  const result = await run(DATA_START_SQL);
  const start = Number(result.rows[0]?.[0] ?? 0);
  return Number.isFinite(start) && start > 0 ? start : undefined;
}

/** `range` starting no earlier than the data, and no shorter than five minutes. */
export function fitToData(range: TimeRange, startMs: number | undefined): TimeRange {
  if (startMs === undefined || startMs <= range.from.getTime()) return range;
  const from = Math.max(range.from.getTime(), Math.min(startMs, range.to.getTime() - SHORTEST_FITTED_MS));
  return { from: new Date(from), to: range.to };
}
