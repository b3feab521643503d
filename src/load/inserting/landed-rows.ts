import type { ClickHouseClient } from '@clickhouse/client';
import { isIdentifier } from '../../warehouse/database.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import type { Batch } from '../batching/batch.ts';
import type { Row, TableName } from '../mapping/types.ts';

/**
 * The rows of a rebuilt range not stored yet, for a range whose round cannot be sent again whole
 * (its partitions went to more than one loader, or part of it was finished or sent this way
 * before). A round's token must only ever go with the round's rows: ClickHouse keeps one block id
 * per token and table partition — its materialized views' targets too (measured on chDB 26.7) —
 * so part of a round sent again with it would be stored in some partitions and dropped in
 * others, and the views would disagree with their table. Instead its loader looks which of the
 * range's rows are stored — by bus position, in the parts written since the range was first
 * recorded — and sends the others alone, with the range's landed token (`batch.ts`).
 */
export async function notStoredRows(warehouse: Warehouse, table: TableName, batch: Batch, rows: readonly Row[], sinceUs: bigint): Promise<Row[]> {
  if (rows.length === 0) return [];
  const present = await storedKeys(warehouse.client, table, batch, sinceUs);
  return rows.filter((row) => !present.has(keyOf(table, row)));
}

/** A row's place: its bus position, its index among its record's rows, and its receive time (an older embedded-bus run reused the offsets). */
function keyOf(table: TableName, row: Row): string {
  if (table === 'dead_letters') return String(row.offset);
  return `${String(row._offset)}|${String(row._index)}|${String(row._received_at)}`;
}

interface StoredKey {
  o: string;
  i: number;
  r: string;
}

/**
 * The places stored in the batch's range, read only from parts written since `sinceUs` (a part
 * holding rows inserted after an instant was written after it, merged or not): the table's old
 * parts are never read. An hour is taken off for a server whose clock is not the loader's.
 */
async function storedKeys(client: ClickHouseClient, table: TableName, batch: Batch, sinceUs: bigint): Promise<Set<string>> {
  if (!isIdentifier(table)) throw new Error(`not a table name: ${table}`);
  const dead = table === 'dead_letters';
  const columns = dead ? `toString(offset) AS o, 0 AS i, '' AS r` : `toString(_offset) AS o, _index AS i, toString(toUnixTimestamp64Micro(_received_at)) AS r`;
  const [topic, partition, offset] = dead ? ['topic', 'partition', 'offset'] : ['_topic', '_partition', '_offset'];
  const result = await client.query({
    query: `SELECT ${columns} FROM tapehouse.${table}
            WHERE ${topic} = {topic:String} AND ${partition} = {partition:UInt32} AND ${offset} BETWEEN {first:UInt64} AND {last:UInt64}
              AND _part IN (SELECT name FROM system.parts WHERE database = 'tapehouse' AND table = {table:String} AND active
                            AND modification_time >= toDateTime({since:Int64}))`,
    query_params: {
      topic: batch.topic,
      partition: batch.partition,
      first: batch.range.first.toString(),
      last: batch.range.last.toString(),
      table,
      since: Number(sinceUs / 1_000_000n) - 3600,
    },
    format: 'JSONEachRow',
  });
  const keys = new Set<string>();
  for (const row of await result.json<StoredKey>()) keys.add(dead ? row.o : `${row.o}|${row.i}|${row.r}`);
  return keys;
}
