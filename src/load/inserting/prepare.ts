import { InsertValueError, type PreparedInsert } from '../../warehouse/insert/index.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import type { Batch } from '../batching/batch.ts';
import { deadLetter, type DeadLetterCode, type DeliverySource } from '../mapping/map-delivery.ts';
import type { TableName } from '../mapping/types.ts';
import { insertGroups, rowAt, rowsOf, type RoundBatch } from './round.ts';

/** One INSERT of a round: the rows of `table` of `items`, encoded, with their deduplication token. */
export interface RoundInsert {
  table: TableName;
  token: string;
  items: RoundBatch[];
  prepared: PreparedInsert;
}

export interface BatchContext {
  warehouse: Warehouse;
  group: string;
  epoch: string;
}

/**
 * Encodes a round's data tables: per table, one INSERT per token (the round's own, and each token
 * a rebuilt batch was recorded with), the rows as ONE block. (Several blocks in one insert would
 * not deduplicate like one: measured on chDB 26.7, an insert of two Native blocks with a token and
 * one of the second block alone with it both landed.) A record with a value its column cannot hold
 * (InsertValueError: an integer out of range, a wrong type) becomes a dead letter, and all its rows
 * leave its batch: a record is stored whole or not at all. Which records that is depends only on
 * the records, so a batch rebuilt after a crash leaves out the same ones.
 */
export async function encodeRound(items: readonly RoundBatch[], context: BatchContext): Promise<RoundInsert[]> {
  const tables = new Set<TableName>();
  for (const item of items)
    for (const table of item.batch.tables.keys()) if (table !== 'dead_letters') tables.add(table);
  for (;;) {
    let current: Pick<RoundInsert, 'table' | 'items'> | undefined;
    try {
      const inserts: RoundInsert[] = [];
      for (const table of tables) {
        for (const [token, group] of insertGroups(items, table)) {
          current = { table, items: group };
          inserts.push(await encodeInsert(table, token, group, context));
        }
      }
      return inserts;
    } catch (error) {
      if (!(error instanceof InsertValueError) || error.reason === 'not an insertable column' || !current) throw error;
      const at = rowAt(current.items, current.table, error.rowIndex);
      if (!at) throw error;
      await deadLetterBadRows(at.item.batch, current.table, at.index, context);
    }
  }
}

/** One INSERT of the rows of `table` of `items`, with `token`. */
export async function encodeInsert(
  table: TableName,
  token: string,
  items: RoundBatch[],
  context: BatchContext,
): Promise<RoundInsert> {
  return {
    table,
    token,
    items,
    prepared: await context.warehouse.prepareInsert(table, rowsOf(items, table), { dedupToken: token }),
  };
}

/**
 * Turns the record of row `rowIndex` of `table` into a dead letter, and every later row of the
 * table that fails alone too (one pass, rather than one full re-encoding per bad row).
 */
async function deadLetterBadRows(
  batch: Batch,
  table: TableName,
  rowIndex: number,
  context: BatchContext,
): Promise<void> {
  const rows = batch.tables.get(table) ?? [];
  const bad = new Map<bigint, string>();
  for (let i = rowIndex; i < rows.length; i++) {
    const row = rows[i]!;
    try {
      await context.warehouse.prepareInsert(table, [row]);
    } catch (error) {
      if (!(error instanceof InsertValueError)) throw error;
      const offset = row._offset as bigint;
      if (!bad.has(offset)) bad.set(offset, `${error.column}: ${error.reason}`);
    }
  }
  for (const [offset, reason] of bad) dropRecord(batch, offset, table, 'value_out_of_range', reason, context);
}

/** Takes a record's rows out of the batch (`only`: out of one table) and adds its dead letter. */
export function dropRecord(
  batch: Batch,
  offset: bigint,
  table: TableName,
  code: DeadLetterCode,
  reason: string,
  context: BatchContext,
  only?: TableName,
): void {
  let removed = 0;
  for (const [name, rows] of batch.tables) {
    if (only !== undefined && name !== only) continue;
    const kept = rows.filter((row) => row._offset !== offset);
    removed += rows.length - kept.length;
    batch.tables.set(name, kept);
  }
  const record = batch.records.get(offset);
  if (!record) throw new Error(`${batch.topic}[${batch.partition}] offset ${offset}: no record to dead-letter`);
  const source: DeliverySource = { topic: batch.topic, partition: batch.partition, group: context.group };
  const letters = batch.tables.get('dead_letters') ?? [];
  letters.push(deadLetter(record, offset, source, table, code, reason).row);
  batch.tables.set('dead_letters', letters);
  batch.rowCount += 1 - removed;
}
