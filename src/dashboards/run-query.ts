import type { ClickHouseClient } from '@clickhouse/client';
import { prepareReadOnlyQuery } from '../warehouse/endpoint/index.ts';

/** A result as ClickHouse's JSONCompact gives it: typed columns, rows of JSON values. */
export interface QueryColumn {
  name: string;
  /** ClickHouse type, e.g. `Nullable(Int64)`, `DateTime64(3, 'UTC')`. */
  type: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  rows: unknown[][];
}

/** Runs one read statement on the warehouse. Whoever mounts the dashboards supplies it. */
export type RunQuery = (sql: string) => Promise<QueryResult>;

/** Dashboards read times as ISO UTC and 64-bit integers as strings, whatever the session says. */
const OUTPUT_SETTINGS = { date_time_output_format: 'iso', output_format_json_quote_64bit_integers: '1' };

/**
 * Every statement the dashboards run passes the embedded endpoint's read-only checks first (one
 * statement, reads only, nothing outside the warehouse, bounded time and size), whatever `run`
 * is connected to: dashboard SQL comes from files, but defence in depth costs nothing here.
 */
export function readOnly(run: RunQuery): RunQuery {
  return (sql) => run(prepareReadOnlyQuery(sql, OUTPUT_SETTINGS).sql);
}

/** A RunQuery over @clickhouse/client: a server, the embedded endpoint's URL, or chDB in-process. */
export function runQueryThroughClient(client: ClickHouseClient): RunQuery {
  return async (sql) => {
    const result = await client.query({ query: sql, format: 'JSONCompact' });
    const body = await result.json<unknown[]>();
    return { columns: body.meta ?? [], rows: body.data };
  };
}
