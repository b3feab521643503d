import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE, sqlString } from '../../warehouse/database.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { mapDelivery } from '../mapping/map-delivery.ts';
import type { Row } from '../mapping/types.ts';
import { REDERIVABLE, storedRecord, type RederivableTable, type StoredRow } from './stored-record.ts';

/**
 * `tapehouse rederive`: the rows of a table mapped again from the raw text they keep, by today's
 * mappers, so a better parser's output reaches history that exists nowhere else.
 *
 * One table partition at a time: the partition's records are mapped again into a scratch copy of
 * the table (the rows of records whose raw text is elsewhere, or that no longer map, are copied as
 * they are), and `ALTER TABLE … REPLACE PARTITION … FROM` the copy swaps the partition whole, in one
 * step. So no row is doubled and none lost whatever instant a run stops at: a partition is either
 * the old rows or the new ones, and a partition done twice is replaced by the same rows. Each
 * partition done is written to `rederive_progress`; a run stopped midway resumes there.
 *
 * A replaced partition does not pass through the table's materialized views: the ReplacingMergeTree
 * stores a view copies the table into whole (`*_latest_store`, `*_by_source`) are given the new rows
 * (same version, inserted later: they win); aggregates (candles, volumes) are not rebuilt — they
 * read prices, sizes and times, which a new typed column does not change.
 *
 * The loaders must not write the table meanwhile (on chDB the data directory has one owner anyway;
 * `tapehouse run` rederives before its loaders start): a partition that changed while it was being
 * rebuilt is rebuilt again, and after three tries the run stops, changing nothing more.
 */

export interface RederiveOptions {
  /** Only partitions holding rows at or after this instant (a partition is rebuilt whole). */
  since?: Date;
  /** Rows read and mapped per step. */
  pageRows?: number;
  onProgress?: (progress: RederiveProgress) => void;
}

export interface RederiveProgress {
  table: string;
  partitionsDone: number;
  partitionsTotal: number;
  rowsRederived: number;
  rowsFailed: number;
}

export interface RederiveResult extends RederiveProgress {
  runId: string;
  /** Partitions a run before this one had already done (a resumed run). */
  partitionsResumed: number;
  rowsBefore: number;
  rowsAfter: number;
  /** Stores kept by materialized views that were given the new rows. */
  storesRefreshed: string[];
}

export class RederiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RederiveError';
  }
}

const EPOCH = new Date(0);

export async function rederiveTable(
  warehouse: Warehouse,
  table: string,
  options: RederiveOptions = {},
): Promise<RederiveResult> {
  const spec = REDERIVABLE[table];
  if (!spec)
    throw new RederiveError(
      `${table} cannot be re-derived: the tables that keep their records' raw text are ${Object.keys(REDERIVABLE).join(', ')}`,
    );
  const client = warehouse.client;
  const since = options.since ?? EPOCH;
  const { runId, done } = await runToResume(client, table, since);
  const partitions = await partitionsSince(client, spec, since);
  const todo = partitions.filter((p) => !done.has(p));
  const stores = await copyingStores(client, table);
  const progress: RederiveProgress = {
    table,
    partitionsDone: partitions.length - todo.length,
    partitionsTotal: partitions.length,
    rowsRederived: 0,
    rowsFailed: 0,
  };
  const result: RederiveResult = {
    ...progress,
    runId,
    partitionsResumed: progress.partitionsDone,
    rowsBefore: 0,
    rowsAfter: 0,
    storesRefreshed: stores,
  };
  options.onProgress?.({ ...progress });
  for (const partition of todo) {
    const figures = await rebuildPartition(warehouse, spec, partition, stores, options.pageRows ?? 20_000);
    await warehouse.insertRows('rederive_progress', [
      {
        run_id: runId,
        table_name: table,
        since: since.getTime(),
        partition_id: partition,
        rows_before: figures.before,
        rows_rederived: figures.rederived,
        rows_failed: figures.failed,
        rows_after: figures.after,
      },
    ]);
    progress.partitionsDone += 1;
    progress.rowsRederived += figures.rederived;
    progress.rowsFailed += figures.failed;
    result.rowsBefore += figures.before;
    result.rowsAfter += figures.after;
    options.onProgress?.({ ...progress });
  }
  // The run is finished: a later run starts afresh.
  await warehouse.insertRows('rederive_progress', [
    { run_id: runId, table_name: table, since: since.getTime(), partition_id: '' },
  ]);
  return { ...result, ...progress };
}

/** The newest unfinished run of this table and `since` (its partitions done), or a new run. */
async function runToResume(
  client: ClickHouseClient,
  table: string,
  since: Date,
): Promise<{ runId: string; done: Set<string> }> {
  const runs = await select<{ run_id: string; finished: number | string; partitions: string[] }>(
    client,
    `SELECT run_id, countIf(partition_id = '') AS finished, groupArrayIf(partition_id, partition_id != '') AS partitions
     FROM ${DATABASE}.rederive_progress
     WHERE table_name = ${sqlString(table)} AND since = fromUnixTimestamp64Milli(${since.getTime()}, 'UTC')
     GROUP BY run_id ORDER BY max(done_at) DESC LIMIT 1`,
  );
  const last = runs[0];
  if (last && Number(last.finished) === 0) return { runId: last.run_id, done: new Set(last.partitions) };
  return { runId: randomUUID(), done: new Set() };
}

async function partitionsSince(client: ClickHouseClient, spec: RederivableTable, since: Date): Promise<string[]> {
  const rows = await select<{ p: string }>(
    client,
    `SELECT _partition_id AS p FROM ${DATABASE}.${spec.table}
     GROUP BY p HAVING max(${spec.timeColumn}) >= fromUnixTimestamp64Milli(${since.getTime()}, 'UTC') ORDER BY p`,
  );
  return rows.map((r) => r.p);
}

/** ReplacingMergeTree tables a materialized view fills with `SELECT *` of this table. */
async function copyingStores(client: ClickHouseClient, table: string): Promise<string[]> {
  const views = await select<{ query: string }>(
    client,
    `SELECT create_table_query AS query FROM system.tables WHERE database = ${sqlString(DATABASE)} AND engine = 'MaterializedView'`,
  );
  const source = new RegExp(`\\bAS SELECT \\* FROM ${DATABASE}\\.${table}\\s*$`);
  const targets = views.flatMap(({ query }) => {
    const target = new RegExp(`\\bTO ${DATABASE}\\.(\\w+)`).exec(query)?.[1];
    return target && source.test(query) ? [target] : [];
  });
  if (targets.length === 0) return [];
  const engines = await select<{ name: string }>(
    client,
    `SELECT name FROM system.tables WHERE database = ${sqlString(DATABASE)} AND engine = 'ReplacingMergeTree' AND name IN (${targets.map(sqlString).join(', ')})`,
  );
  return engines.map((e) => e.name).sort();
}

interface PartitionFigures {
  before: number;
  rederived: number;
  failed: number;
  after: number;
}

async function rebuildPartition(
  warehouse: Warehouse,
  spec: RederivableTable,
  partition: string,
  stores: string[],
  pageRows: number,
): Promise<PartitionFigures> {
  for (let attempt = 1; ; attempt++) {
    const figures = await tryPartition(warehouse, spec, partition, stores, pageRows);
    if (figures) return figures;
    if (attempt === 3)
      throw new RederiveError(
        `${spec.table} partition ${partition} changed while it was being rebuilt, three times: stop the loaders writing it and run again`,
      );
  }
}

/** Rebuilds one partition into a scratch copy and swaps it in; null when the partition changed meanwhile. */
async function tryPartition(
  warehouse: Warehouse,
  spec: RederivableTable,
  partition: string,
  stores: string[],
  pageRows: number,
): Promise<PartitionFigures | null> {
  const client = warehouse.client;
  const table = `${DATABASE}.${spec.table}`;
  const scratch = `${DATABASE}.${spec.table}__rederive`;
  const inPartition = `_partition_id = ${sqlString(partition)}`;
  const before = await fingerprint(client, table, inPartition);
  await client.command({ query: `DROP TABLE IF EXISTS ${scratch}` });
  await client.command({ query: `CREATE TABLE ${scratch} AS ${table}` });
  // A fresh copy, and no insert deduplication in it: every row sent must land.
  await client.command({ query: `ALTER TABLE ${scratch} MODIFY SETTING non_replicated_deduplication_window = 0` });
  warehouse.forgetSchemas();
  let rederived = 0;
  let failed = 0;
  let after: { topic: string; partition: number | string; offset: string } | null = null;
  for (;;) {
    const page = await storedRows(client, spec, inPartition, after, pageRows);
    if (page.length === 0) break;
    const rows: Row[] = [];
    for (const stored of page) {
      const mapped = remap(spec, stored);
      if (mapped === null) failed += 1;
      else rows.push(...mapped);
    }
    if (rows.length > 0) await warehouse.insertRows(`${spec.table}__rederive`, rows);
    rederived += rows.length;
    const last = page[page.length - 1]!;
    after = { topic: last._topic, partition: last._partition, offset: last._offset };
    if (page.length < pageRows) break;
  }
  // Every other row of the partition as it is: rows of records whose raw text is in another table,
  // or that did not map again (their old rows stand).
  await client.command({
    query: `INSERT INTO ${scratch} SELECT * FROM ${table} WHERE ${inPartition}
            AND (_topic, _partition, _offset) NOT IN (SELECT DISTINCT _topic, _partition, _offset FROM ${scratch})`,
  });
  const spilled = await select<{ p: string }>(
    client,
    `SELECT DISTINCT _partition_id AS p FROM ${scratch} WHERE NOT ${inPartition} LIMIT 1`,
  );
  if (spilled.length > 0) {
    throw new RederiveError(
      `${spec.table} partition ${partition}: records mapped again land in partition ${spilled[0]!.p} — a mapping that moves rows between partitions is not re-derived in place`,
    );
  }
  const afterCount = await fingerprint(client, scratch, inPartition);
  if ((await fingerprint(client, table, inPartition)).hash !== before.hash) return null;
  await client.command({ query: `ALTER TABLE ${table} REPLACE PARTITION ID ${sqlString(partition)} FROM ${scratch}` });
  for (const store of stores)
    await client.command({ query: `INSERT INTO ${DATABASE}.${store} SELECT * FROM ${scratch}` });
  await client.command({ query: `DROP TABLE IF EXISTS ${scratch}` });
  return { before: before.rows, rederived, failed, after: afterCount.rows };
}

/** The rows of one partition, and a hash of which they are: anything inserted meanwhile changes it. */
async function fingerprint(
  client: ClickHouseClient,
  table: string,
  where: string,
): Promise<{ rows: number; hash: string }> {
  const [row] = await select<{ rows: string; hash: string }>(
    client,
    `SELECT count() AS rows, toString(groupBitXor(cityHash64(_topic, _partition, _offset, _index, _received_at))) AS hash FROM ${table} WHERE ${where}`,
  );
  return { rows: Number(row?.rows ?? 0), hash: row?.hash ?? '0' };
}

/** A page of records' first rows that keep raw text, in bus order after `after`. */
async function storedRows(
  client: ClickHouseClient,
  spec: RederivableTable,
  inPartition: string,
  after: { topic: string; partition: number | string; offset: string } | null,
  limit: number,
): Promise<StoredRow[]> {
  const extra = (spec.payloadColumns ?? []).map((c) => `${sqlString(c)}, toString(${c})`).join(', ');
  // Market data has no sync provenance: its records came from streams.
  const sync = spec.synced ? '_sync_job, _sync_page' : "'' AS _sync_job, 0 AS _sync_page";
  const from =
    after === null
      ? ''
      : `AND (_topic, _partition, _offset) > (${sqlString(after.topic)}, ${Number(after.partition)}, ${BigInt(after.offset)})`;
  return select<StoredRow>(
    client,
    `SELECT _topic, _partition, toString(_offset) AS _offset, toString(toUnixTimestamp64Micro(_received_at)) AS received_us, ${sync}, _raw,
            toUnixTimestamp64Milli(${spec.timeColumn}) AS time_ms, ${spec.keyColumn ? `toString(${spec.keyColumn})` : "''"} AS key,
            ${extra ? `map(${extra})` : 'map()'} AS extra, ${spec.framed ? 'toString(frame_conn)' : "'0'"} AS frame_conn
     FROM ${DATABASE}.${spec.table}
     WHERE ${inPartition} AND _index = 0 AND _raw != '' ${from}
     ORDER BY _topic, _partition, _offset LIMIT ${limit}`,
  );
}

/** The record's rows of this table, mapped again and stamped as the loader stamps them; null when it no longer maps. */
function remap(spec: RederivableTable, stored: StoredRow): Row[] | null {
  let record;
  try {
    record = storedRecord(spec, stored);
  } catch {
    return null; // raw text that is not JSON: the stored rows stand
  }
  const mapped = mapDelivery(
    { offset: BigInt(stored._offset), ok: true, record },
    { topic: stored._topic, partition: Number(stored._partition), group: 'rederive' },
  );
  if (mapped.some((m) => m.table === 'dead_letters')) return null;
  return mapped.filter((m) => m.table === spec.table).map((m) => m.row);
}

async function select<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow' });
  return result.json<T>();
}
