import type { ReceivedRecord } from '../../bus/record.ts';
import type { Row, TableName } from '../mapping/types.ts';

/** An inclusive range of offsets of one topic-partition. */
export interface OffsetRange {
  first: bigint;
  last: bigint;
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
  /** Rebuilt from a range recorded before a crash (the same range, so the same tokens). */
  rebuilt: boolean;
}

/** The deduplication token of one table's insert of a batch; `epoch` only on the embedded bus. */
export function dedupToken(table: string, topic: string, partition: number, range: OffsetRange, epoch: string): string {
  const token = `${table}:${topic}:${partition}:${range.first}-${range.last}`;
  return epoch === '' ? token : `${token}@${epoch}`;
}
