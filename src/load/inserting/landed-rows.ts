import type { ClickHouseClient } from '@clickhouse/client';
import { isIdentifier } from '../../warehouse/database.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { dedupToken, type Batch } from '../batching/batch.ts';
import type { Row, TableName } from '../mapping/types.ts';

/**
 * Rows a shared round token may have left out, added once.
 *
 * A round inserts the rows of several partitions' batches as one INSERT per table, with one token
 * (`<table>:round:<id>`). ClickHouse keeps one block id per token and table partition (measured
 * on chDB 26.7: a second insert with the token lands only in table partitions the first did not
 * touch, and its materialized views follow the same rule). When a round's batches are rebuilt by
 * different loaders (a partition changed hands, a loader died), each sends only its own batches
 * with the round's token: whichever lands first in a table partition decides what is stored
 * there, and the others' rows in it are dropped. So whoever sends a round token without the
 * whole round looks, once its insert returned — the block ids that decide are then fixed — which
 * of its rows are stored, and adds the missing ones with the range's own token (those rows
 * depend only on which insert won, so two loaders adding them add the same rows, once).
 */
export async function addMissingRows(
  warehouse: Warehouse,
  table: TableName,
  batch: Batch,
  rows: readonly Row[],
  sinceUs: bigint,
  epoch: string,
): Promise<number> {
  if (rows.length === 0) return 0;
  const present = await storedKeys(warehouse.client, table, batch, sinceUs);
  const missing = rows.filter((row) => !present.has(keyOf(table, row)));
  if (missing.length === 0) return 0;
  const prepared = await warehouse.prepareInsert(table, missing, {
    dedupToken: dedupToken(table, batch.topic, batch.partition, batch.range, epoch),
  });
  await prepared.send();
  return missing.length;
}

/** A row's place: its bus position, its index among its record's rows, and its receive time (an older embedded-bus run
 * reused the offsets). */
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
 * parts are never read. An hour is taken off for a server whose clock is not the loader's. The
 * parts are named first and read by name; a background merge that replaced one of them meanwhile
 * would hide its rows (they moved to a part not named), so the read is made again until every
 * part named is still there — a fault suite run found a dead letter added twice that way.
 */
async function storedKeys(
  client: ClickHouseClient,
  table: TableName,
  batch: Batch,
  sinceUs: bigint,
): Promise<Set<string>> {
  if (!isIdentifier(table)) throw new Error(`not a table name: ${table}`);
  const dead = table === 'dead_letters';
  const columns = dead
    ? `toString(offset) AS o, 0 AS i, '' AS r`
    : `toString(_offset) AS o, _index AS i, toString(toUnixTimestamp64Micro(_received_at)) AS r`;
  const [topic, partition, offset] = dead ? ['topic', 'partition', 'offset'] : ['_topic', '_partition', '_offset'];
  for (;;) {
    const parts = await activeParts(
      client,
      table,
      `AND modification_time >= toDateTime(${Number(sinceUs / 1_000_000n) - 3600})`,
    );
    const result = await client.query({
      query: `SELECT ${columns} FROM tapehouse.${table}
              WHERE ${topic} = {topic:String} AND ${partition} = {partition:UInt32} AND ${offset} BETWEEN {first:UInt64} AND {last:UInt64}
                AND _part IN {parts:Array(String)}`,
      query_params: {
        topic: batch.topic,
        partition: batch.partition,
        first: batch.range.first.toString(),
        last: batch.range.last.toString(),
        parts,
      },
      format: 'JSONEachRow',
    });
    const rows = await result.json<StoredKey>();
    const still = await activeParts(
      client,
      table,
      `AND name IN (${parts.map((name) => `'${name.replace(/[^A-Za-z0-9_-]/g, '')}'`).join(',') || "''"})`,
    );
    if (still.length < parts.length) continue;
    const keys = new Set<string>();
    for (const row of rows) keys.add(dead ? row.o : `${row.o}|${row.i}|${row.r}`);
    return keys;
  }
}

/** Names of the table's active parts that `condition` (SQL on system.parts) picks. */
async function activeParts(client: ClickHouseClient, table: TableName, condition: string): Promise<string[]> {
  const result = await client.query({
    query: `SELECT name FROM system.parts WHERE database = 'tapehouse' AND table = {table:String} AND active ${condition}`,
    query_params: { table },
    format: 'JSONEachRow',
  });
  return (await result.json<{ name: string }>()).map((row) => row.name);
}
