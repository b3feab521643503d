import type { ReceivedRecord } from '../../bus/record.ts';
import type { Row, TableName } from '../mapping/types.ts';

/** An inclusive range of offsets of one topic-partition. */
export interface OffsetRange {
  first: bigint;
  last: bigint;
}

/**
 * A range recorded `before` an insert and never `after` (a crash, or a partition that changed
 * hands): rebuilt exactly, and inserted with the tokens it was recorded with.
 */
export interface UnfinishedRange extends OffsetRange {
  /** Per table, the deduplication token its `before` row recorded (a round's, or the range's own). */
  tokens: ReadonlyMap<string, string>;
  /** When its `before` was first recorded (µs): the rows it may have left are in parts written since. */
  recordedAtUs: bigint;
}

/**
 * The rows of a contiguous range of one partition's offsets, ready to insert: one insert per
 * table, each with the deduplication token of (table, topic, partition, range). The range is what
 * `loader_offsets` records before the inserts, so after a crash the same batch is rebuilt from the
 * same offsets and sent with the same tokens.
 */
export interface Batch {
  topic: string;
  partition: number;
  range: OffsetRange;
  /** Rows per table, in offset order. */
  tables: Map<TableName, Row[]>;
  /** The records behind the rows, for dead-lettering one whose value the warehouse refuses. */
  records: Map<bigint, ReceivedRecord>;
  rowCount: number;
  /** Newest receive time among the records (µs; 0 when none decoded). */
  maxReceivedUs: bigint;
  /** Rebuilt from a range recorded before a crash: the same range, inserted with the tokens recorded then. */
  rebuilt?: UnfinishedRange;
}

/**
 * The range's own deduplication token for one table: a range inserted alone (before rounds, and
 * when rows a round left out are added, see inserting/landed-rows.ts); `epoch` only on the
 * embedded bus.
 */
export function dedupToken(table: string, topic: string, partition: number, range: OffsetRange, epoch: string): string {
  const token = `${table}:${topic}:${partition}:${range.first}-${range.last}`;
  return epoch === '' ? token : `${token}@${epoch}`;
}

/** The token of one table's insert of a round: the rows of every batch in it, one INSERT. */
export function roundToken(table: string, round: string, epoch: string): string {
  const token = `${table}:round:${round}`;
  return epoch === '' ? token : `${token}@${epoch}`;
}

/**
 * The token a batch's rows of `table` go with when it is inserted alone. A rebuilt batch goes with
 * the tokens its `before` rows recorded. A table it recorded no token for had no rows then, but
 * may have some now: dead letters that the engine's refusal of a value made while the round was in
 * flight. Before the crash those went with the round's token, so they go with it again (derived
 * from a token the round recorded), and the flusher adds what that token left out (landed-rows.ts),
 * rather than with a token of their own, which would store them a second time.
 */
export function batchToken(batch: Batch, table: string, epoch: string): string {
  const recorded = batch.rebuilt?.tokens;
  const token = recorded?.get(table);
  if (token !== undefined) return token;
  const round = recorded && [...recorded.values()].find((other) => ROUND_TOKEN.test(other));
  if (round !== undefined) return round.replace(ROUND_TOKEN, `${table}:round:`);
  return dedupToken(table, batch.topic, batch.partition, batch.range, epoch);
}

// `<table>:round:<id>[@epoch]`: table names hold no colon.
const ROUND_TOKEN = /^[^:]+:round:/;
