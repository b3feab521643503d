import { batchToken, roundToken, type Batch } from '../batching/batch.ts';
import type { Row, TableName } from '../mapping/types.ts';

/** A batch waiting for a round. */
export interface Entry {
  batch: Batch;
  /** Rows it counts for in the queue's room (dead-lettering may change the batch's own count). */
  rows: number;
  /** The partition's ownership when it was cut: a batch of an ownership since lost is never recorded `before`. */
  owned: number;
}

/**
 * One partition's share of a round: the batches it cut since its last round, merged into one range
 * (they follow each other and none was recorded yet), or one rebuilt batch alone (its range and
 * tokens are the ones recorded before a crash).
 */
export interface RoundBatch {
  entries: Entry[];
  batch: Batch;
  /** The deduplication token its rows of a table go with. */
  tokenOf(table: string): string;
}

/**
 * The round's batches, one per partition (`entries` come grouped and in offset order, see
 * Flusher's #takeRound). Normal batches go with the round's tokens — one INSERT per table for all
 * of them —, a rebuilt one with those it was recorded with (with the rest of its round when
 * this loader rebuilds all of it).
 */
export function formRound(entries: readonly Entry[], round: string, epoch: string): RoundBatch[] {
  const byPartition = new Map<string, Entry[]>();
  for (const entry of entries) {
    const key = `${entry.batch.topic}\u0000${entry.batch.partition}`;
    const list = byPartition.get(key);
    if (list) list.push(entry);
    else byPartition.set(key, [entry]);
  }
  return [...byPartition.values()].map((list): RoundBatch => {
    const batch = merged(list.map((entry) => entry.batch));
    if (batch.rebuilt) return { entries: list, batch, tokenOf: (table) => batchToken(batch, table, epoch) };
    return { entries: list, batch, tokenOf: (table) => roundToken(table, round, epoch) };
  });
}

/** Whether `next` may be merged after `previous` in one round's range: no offset between them, neither rebuilt. */
export function follows(previous: Batch, next: Batch): boolean {
  return !previous.rebuilt && !next.rebuilt && next.range.first === previous.range.last + 1n;
}

/** The round's batches grouped by the token their rows of `table` go with: one INSERT each. */
export function insertGroups(
  items: readonly RoundBatch[],
  table: TableName,
): Array<[token: string, items: RoundBatch[]]> {
  const byToken = new Map<string, RoundBatch[]>();
  for (const item of items) {
    if ((item.batch.tables.get(table)?.length ?? 0) === 0) continue;
    const token = item.tokenOf(table);
    const list = byToken.get(token);
    if (list) list.push(item);
    else byToken.set(token, [item]);
  }
  return [...byToken];
}

/** The rows of `table` of the items, in order. */
export function rowsOf(items: readonly RoundBatch[], table: TableName): Row[] {
  const rows: Row[] = [];
  for (const item of items) for (const row of item.batch.tables.get(table) ?? []) rows.push(row);
  return rows;
}

/** The item a row of `rowsOf(items, table)` comes from, and its index among that item's rows. */
export function rowAt(
  items: readonly RoundBatch[],
  table: TableName,
  at: number,
): { item: RoundBatch; index: number } | undefined {
  let index = at;
  for (const item of items) {
    const count = item.batch.tables.get(table)?.length ?? 0;
    if (index < count) return { item, index };
    index -= count;
  }
  return undefined;
}

/** Consecutive batches of one partition as one: their rows table by table, in offset order. */
function merged(batches: readonly Batch[]): Batch {
  const [first] = batches;
  if (batches.length === 1) return first!;
  const tables = new Map<TableName, Row[]>();
  const records = new Map(first!.records);
  let rowCount = 0;
  let maxReceivedUs = 0n;
  for (const batch of batches) {
    for (const [table, rows] of batch.tables) {
      const list = tables.get(table);
      if (list) for (const row of rows) list.push(row);
      else tables.set(table, rows.slice());
    }
    if (batch !== first) for (const [offset, record] of batch.records) records.set(offset, record);
    rowCount += batch.rowCount;
    if (batch.maxReceivedUs > maxReceivedUs) maxReceivedUs = batch.maxReceivedUs;
  }
  return {
    topic: first!.topic,
    partition: first!.partition,
    range: { first: first!.range.first, last: batches.at(-1)!.range.last },
    tables,
    records,
    rowCount,
    maxReceivedUs,
  };
}
