import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE } from '../../warehouse/database.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { rederiveTable, type RederiveProgress, type RederiveResult } from './rederive.ts';

/**
 * Tables a migration asked to re-derive (`rederive_requests`, written by the migration itself)
 * that no whole-table run has finished since: what `tapehouse run` re-derives before its loaders
 * start and `tapehouse migrate` names. A run with `--since` answers no request.
 */
export async function pendingRederives(
  client: ClickHouseClient,
  options: { withRows?: boolean } = {},
): Promise<string[]> {
  // withRows: only tables that hold rows (on a fresh warehouse a request is nothing to do).
  const withRows = options.withRows
    ? `AND r.table_name IN (SELECT table FROM system.parts WHERE database = '${DATABASE}' AND active GROUP BY table HAVING sum(rows) > 0)`
    : '';
  const result = await client.query({
    query: `SELECT r.table_name AS table_name
            FROM (SELECT table_name, max(requested_at) AS requested FROM ${DATABASE}.rederive_requests GROUP BY table_name) AS r
            LEFT JOIN (
                SELECT table_name, max(done_at) AS finished FROM ${DATABASE}.rederive_progress
                WHERE partition_id = '' AND since = fromUnixTimestamp64Milli(0, 'UTC') GROUP BY table_name
            ) AS d ON d.table_name = r.table_name
            WHERE (d.table_name = '' OR r.requested > d.finished) ${withRows}
            ORDER BY table_name`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ table_name: string }>()).map((r) => r.table_name);
}

/**
 * Re-derives every table a migration asked for, one after the other (before loaders start):
 * `tapehouse run` calls it after migrating. Returns what each run did.
 */
export async function rederivePending(
  warehouse: Warehouse,
  onProgress?: (progress: RederiveProgress) => void,
): Promise<RederiveResult[]> {
  const results: RederiveResult[] = [];
  for (const table of await pendingRederives(warehouse.client))
    results.push(await rederiveTable(warehouse, table, onProgress ? { onProgress } : {}));
  return results;
}
