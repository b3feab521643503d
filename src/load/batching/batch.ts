import type { ReceivedRecord } from '../../bus/record.ts';
import type { Row, TableName } from '../mapping/types.ts';

/** An inclusive range of offsets of one topic-partition. */
export interface OffsetRange {
  first: bigint;
  last: bigint;
}

/**
 * A range recorded `before` an insert and never `after` (a crash, or a partition that changed
 * hands): rebuilt exactly, and sent again with the tokens it was recorded with — with the rest of
 * its round when this loader rebuilds all of it.
 */
export interface UnfinishedRange extends OffsetRange {
  /** Per table, the deduplication token its `before` row recorded (a round's, or the range's own). */
  tokens: ReadonlyMap<string, string>;
  /** When its `before` was first recorded (µs): the rows it may have left are in parts written since. */
  recordedAtUs: bigint;
  /** The round it was recorded in, when every token it recorded is that round's. */
  round?: RecordedRound;
}

/**
 * A round as `loader_offsets` recorded it: every range it held, and whether it may be sent again
 * whole — every range of it unfinished and recorded with its tokens only.
 */
export interface RecordedRound {
  id: string;
  members: ReadonlyArray<{ topic: string; partition: number; first: bigint; last: bigint }>;
  replayable: boolean;
}

/**
 * The rows of a contiguous range of one partition's offsets, ready to insert (in a round, with the
 * round's tokens). The range is what `loader_offsets` records before the inserts, so after a crash
 * the same batch is rebuilt from the same offsets.
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

/** The round id in a round token, if it is one. */
export function roundIdOf(token: string): string | undefined {
  return ROUND_ID.exec(token)?.[1];
}

/**
 * The token a rebuilt batch's rows of `table` go with: the one its `before` rows recorded. A table
 * it recorded no token for had no rows then, but may have some now: dead letters that the engine's
 * refusal of a value made while the round was in flight. Before the crash those went with the
 * round's token, so they go with it again (derived from a token the round recorded), and the
 * flusher adds what that token left out (landed-rows.ts).
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
const ROUND_ID = /^[^:]+:round:([^@]+)/;
