import type { ClickHouseClient } from '@clickhouse/client';
import { isIdentifier } from '../../warehouse/database.ts';

/**
 * Batches of a killed run of the embedded bus that were recorded `before` but never `after`:
 * whether their rows nonetheless reached the warehouse (the run was killed between the insert and
 * the `after`). Those records are stored, so a bus gap starts after them, not before. A batch
 * counts only when every table it was meant for holds all its rows, and every unfinished batch
 * before it in its partition counts too; rows of an older run with the same offsets are told
 * apart by their receive time, later than this run's start.
 */

export interface LandedBatch {
  epoch: string;
  topic: string;
  partition: number;
  lastOffset: bigint;
  maxReceivedUs: bigint;
}

interface Unfinished {
  bus_epoch: string;
  topic: string;
  partition: number;
  target_table: string;
  first: string;
  last: string;
  rows: string;
  max_received_us: string;
}

export async function landedBatches(
  client: ClickHouseClient,
  group: string,
  runs: ReadonlyArray<{ epoch: string; startedUs: bigint }>,
): Promise<LandedBatch[]> {
  if (runs.length === 0) return [];
  const result = await client.query({
    query: `SELECT bus_epoch, topic, partition, target_table, toString(min_offset) AS first, toString(max_offset) AS last,
                   toString(any(row_count)) AS rows, toString(toUnixTimestamp64Micro(any(max_received_at))) AS max_received_us
            FROM tapehouse.loader_offsets
            WHERE consumer_group = {group:String} AND bus_epoch IN {epochs:Array(String)}
            GROUP BY bus_epoch, topic, partition, target_table, min_offset, max_offset
            HAVING countIf(state = 'after') = 0`,
    query_params: { group, epochs: runs.map((run) => run.epoch) },
    format: 'JSONEachRow',
  });
  const byBatch = new Map<string, Unfinished[]>();
  for (const row of await result.json<Unfinished>()) {
    const key = `${row.bus_epoch}\u0000${row.topic}\u0000${row.partition}\u0000${row.first}\u0000${row.last}`;
    byBatch.set(key, [...(byBatch.get(key) ?? []), row]);
  }
  const started = new Map(runs.map((run) => [run.epoch, run.startedUs]));
  // Per partition, in offset order: a batch counts only when every batch before it landed too
  // (a round's batches are inserted concurrently, so a later one can land and an earlier not).
  const byPartition = new Map<string, Unfinished[][]>();
  for (const tables of byBatch.values()) {
    const key = `${tables[0]!.bus_epoch}\u0000${tables[0]!.topic}\u0000${tables[0]!.partition}`;
    byPartition.set(key, [...(byPartition.get(key) ?? []), tables]);
  }
  const landed: LandedBatch[] = [];
  for (const batches of byPartition.values()) {
    batches.sort((a, b) => (BigInt(a[0]!.first) < BigInt(b[0]!.first) ? -1 : 1));
    for (const tables of batches) {
      let all = true;
      for (const table of tables) all &&= await holdsAll(client, table, started.get(table.bus_epoch) ?? 0n);
      if (!all) break;
      const first = tables[0]!;
      landed.push({
        epoch: first.bus_epoch,
        topic: first.topic,
        partition: first.partition,
        lastOffset: BigInt(first.last),
        maxReceivedUs: BigInt(first.max_received_us),
      });
    }
  }
  return landed;
}

async function holdsAll(client: ClickHouseClient, batch: Unfinished, startedUs: bigint): Promise<boolean> {
  if (batch.target_table === '' || Number(batch.rows) === 0) return true;
  if (!isIdentifier(batch.target_table)) return false;
  const dead = batch.target_table === 'dead_letters';
  const [topic, partition, offset, received] = dead
    ? ['topic', 'partition', 'offset', 'received_at']
    : ['_topic', '_partition', '_offset', '_received_at'];
  const result = await client.query({
    query: `SELECT count() AS n FROM tapehouse.${batch.target_table}
            WHERE ${topic} = {topic:String} AND ${partition} = {partition:UInt32} AND ${offset} BETWEEN {first:UInt64} AND {last:UInt64}
              AND toUnixTimestamp64Micro(${received}) >= {started:Int64}`,
    query_params: {
      topic: batch.topic,
      partition: batch.partition,
      first: batch.first,
      last: batch.last,
      started: startedUs.toString(),
    },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0) >= Number(batch.rows);
}
