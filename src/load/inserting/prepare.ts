import type { PreparedInsert } from '../../warehouse/insert/insert-rows.ts';
import { InsertValueError } from '../../warehouse/insert/tsv-encoders.ts';
import type { Warehouse } from '../../warehouse/warehouse.ts';
import { dedupToken, type Batch } from '../batching/batch.ts';
import { deadLetter, type DeadLetterCode, type DeliverySource } from '../mapping/map-delivery.ts';
import type { Row, TableName } from '../mapping/types.ts';

/** One table's insert of a batch, encoded and ready to send. */
export interface TableInsert {
  table: TableName;
  token: string;
  rows: Row[];
  prepared: PreparedInsert;
}

export interface PreparedBatch {
  batch: Batch;
  /** Data tables first, dead_letters last (a value the warehouse refuses adds a dead letter). */
  inserts: TableInsert[];
}

export interface BatchContext {
  warehouse: Warehouse;
  group: string;
  epoch: string;
}

/**
 * Encodes every table of a batch. A record with a value its column cannot hold (InsertValueError:
 * an integer out of range, a wrong type) becomes a dead letter, and all its rows leave the batch:
 * a record is stored whole or not at all. The result depends only on the batch, so a batch rebuilt
 * after a crash encodes to the same inserts.
 */
export async function prepareBatch(batch: Batch, context: BatchContext): Promise<PreparedBatch> {
  for (;;) {
    try {
      const inserts: TableInsert[] = [];
      for (const table of insertOrder(batch)) inserts.push(await encodeTable(batch, table, context));
      return { batch, inserts };
    } catch (error) {
      if (!(error instanceof InsertValueError) || error.reason === 'not an insertable column') throw error;
      const table = tableOf(error);
      await deadLetterBadRows(batch, table, error.rowIndex, context);
    }
  }
}

export async function encodeTable(batch: Batch, table: TableName, context: BatchContext): Promise<TableInsert> {
  const rows = batch.tables.get(table) ?? [];
  const token = dedupToken(table, batch.topic, batch.partition, batch.range, context.epoch);
  const prepared = await context.warehouse.prepareInsert(table, rows, { dedupToken: token });
  return { table, token, rows, prepared };
}

/** Tables in the order they are sent: the data, then the dead letters the data may still add to. */
export function insertOrder(batch: Batch): TableName[] {
  const tables = [...batch.tables.keys()].filter((table) => table !== 'dead_letters');
  return [...tables, 'dead_letters'];
}

/**
 * Turns the record of row `rowIndex` of `table` into a dead letter, and every later row of the
 * table that fails alone too (one pass, rather than one full re-encoding per bad row).
 */
async function deadLetterBadRows(batch: Batch, table: TableName, rowIndex: number, context: BatchContext): Promise<void> {
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

function tableOf(error: InsertValueError): TableName {
  return error.table.slice(error.table.indexOf('.') + 1) as TableName;
}
