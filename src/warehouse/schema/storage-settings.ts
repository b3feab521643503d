import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE, sqlString } from '../database.ts';
import type { WarehouseTarget } from '../target.ts';

/**
 * MergeTree settings every table of the warehouse carries, so the embedded default fits a laptop.
 * A merge leaves the parts it merged behind as outdated copies until the table's cleanup thread
 * removes them; that thread backs off from `cleanup_delay_period` (30 s) towards
 * `max_cleanup_delay_period` (300 s) whenever a round removed little — which, with a small insert
 * every second re-merging a small table, is every round: measured on chDB, 120 outdated copies of
 * a table after two minutes, the data directory 10–20× its active parts. With these the thread
 * comes back every second whatever it found: book_changes alone takes a dozen inserts a second (one
 * per bus partition), and while a day's part is smaller than the merge selector's fixed cost (5 MB)
 * it is merged again every few of them. Measured on a table taking 12 inserts a second for 90 s:
 * directory ÷ active parts 9.2 with a cleanup every 1–6 s, 2.6 every second (what remains is the
 * blocks of a dozen small files per part); a less eager selector (`merge_selector_base = 30`) kept
 * 21 small parts instead and did worse (4.0). (chDB's `old_parts_lifetime` is 0: an outdated part
 * goes at the next round. A ClickHouse server keeps its own default, 480 s, which guards against
 * losing a merged part that was not yet on disk at a power cut: an operator's choice.)
 */
export const STORAGE_SETTINGS: Readonly<Record<string, number>> = {
  cleanup_delay_period: 1,
  max_cleanup_delay_period: 1,
  cleanup_delay_period_random_add: 0,
  // Every merge of enough columns goes column by column (vertical), not only those of 131,072 rows
  // or more: a small table is merged again with each few inserts while its day's part is smaller
  // than the selector's fixed cost, and merged whole row by row that took 70–98 MiB of the
  // engine's memory a merge for quotes and position_snapshots (their raw payloads), at rate 20.
  // Column by column it takes one column's buffers: the engine's resident memory 157–221 MiB
  // against 165–337 side by side over 20 minutes, for no CPU measured (DEVELOPERS.md).
  vertical_merge_algorithm_min_rows_to_activate: 1,
};

/**
 * The deduplication window the migrations give each table the loaders write (10,000 inserts, one
 * table 1,000), sized for a group of loaders sharing a ClickHouse server: while a member's
 * partitions move to another (session and rebalance timeouts), the others go on inserting, and the
 * new owner's re-sent round must still find its token. On chDB one process holds a data directory,
 * so one loader writes it: a loader sends its unfinished rounds again before any other insert of
 * its own, and no one else inserts. There the window is 1,000: a window is kept in memory (an
 * entry of ~200 bytes per insert, up to the window, per table), and 10,000 was the one thing still
 * growing in a rate-20 job after its first hour — 17 tables take an insert a second or more.
 */
export const GROUP_DEDUPLICATION_WINDOW = 10_000;
export const ONE_LOADER_DEDUPLICATION_WINDOW = 1_000;

export interface StorageOptions {
  /** The window of every table that has one; unset, each keeps what its migration gave it. */
  deduplicationWindow?: number;
}

/** chDB has one loader per data directory; a server may have a group. */
export function storageOptionsFor(target: WarehouseTarget): StorageOptions {
  return target.kind === 'chdb' ? { deduplicationWindow: ONE_LOADER_DEDUPLICATION_WINDOW } : {};
}

const WINDOW = /\bnon_replicated_deduplication_window = (\d+)/;

/** A table's CREATE with the deduplication window asked for, where it has one (as applyStorageSettings would leave it).
 */
export function withStorageOptions(ddl: string, options: StorageOptions): string {
  const window = options.deduplicationWindow;
  if (window === undefined) return ddl;
  return ddl.replace(new RegExp(WINDOW.source, 'g'), (setting, value: string) =>
    Number(value) > 0 ? `non_replicated_deduplication_window = ${window}` : setting,
  );
}

/**
 * Gives every MergeTree table of `tapehouse` the storage settings it lacks (tables created by any
 * migration, now or later, and tables created again), and the deduplication window asked for to
 * every table that deduplicates (a table without a window stays without). Returns the tables changed.
 */
export async function applyStorageSettings(client: ClickHouseClient, options: StorageOptions = {}): Promise<string[]> {
  const result = await client.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = ${sqlString(DATABASE)} AND engine LIKE '%MergeTree'`,
    format: 'JSONEachRow',
  });
  const changed: string[] = [];
  for (const { name, engine_full } of await result.json<{ name: string; engine_full: string }>()) {
    const wanted: Record<string, number> = { ...STORAGE_SETTINGS };
    if (options.deduplicationWindow !== undefined && Number(WINDOW.exec(engine_full)?.[1] ?? 0) > 0)
      wanted.non_replicated_deduplication_window = options.deduplicationWindow;
    const missing = Object.entries(wanted).filter(
      ([setting, value]) => !new RegExp(`\\b${setting} = ${value}\\b`).test(engine_full),
    );
    if (missing.length === 0) continue;
    await client.command({
      query: `ALTER TABLE ${DATABASE}.\`${name}\` MODIFY SETTING ${missing.map(([setting, value]) => `${setting} = ${value}`).join(', ')}`,
    });
    changed.push(name);
  }
  return changed;
}
