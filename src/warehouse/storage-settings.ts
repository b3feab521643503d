import type { ClickHouseClient } from '@clickhouse/client';
import { DATABASE, sqlString } from './database.ts';

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
};

/**
 * Gives every MergeTree table of `tapehouse` the storage settings it lacks (tables created by any
 * migration, now or later, and tables created again). Returns the tables changed.
 */
export async function applyStorageSettings(client: ClickHouseClient): Promise<string[]> {
  const result = await client.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = ${sqlString(DATABASE)} AND engine LIKE '%MergeTree'`,
    format: 'JSONEachRow',
  });
  const changed: string[] = [];
  for (const { name, engine_full } of await result.json<{ name: string; engine_full: string }>()) {
    const missing = Object.entries(STORAGE_SETTINGS).filter(([setting, value]) => !new RegExp(`\\b${setting} = ${value}\\b`).test(engine_full));
    if (missing.length === 0) continue;
    await client.command({
      query: `ALTER TABLE ${DATABASE}.\`${name}\` MODIFY SETTING ${missing.map(([setting, value]) => `${setting} = ${value}`).join(', ')}`,
    });
    changed.push(name);
  }
  return changed;
}
