import { describe, expect, it } from 'vitest';
import type { ReceivedRecord } from '../src/bus/record.ts';
import type { Batch } from '../src/load/batching/batch.ts';
import { PartitionBatcher, type BatchLimits, type PartitionStart } from '../src/load/batching/partition-batcher.ts';
import type { MappedRow } from '../src/load/mapping/types.ts';

const LIMITS: BatchLimits = { maxRows: 4, maxBytes: 1_000_000, maxDelayMs: 1_000 };

function record(offset: number): ReceivedRecord {
  return {
    kind: 'trade',
    key: 'c',
    venueTime: null,
    receivedAtUs: 1_700_000_000_000_000n + BigInt(offset),
    source: { type: 'stream', connection: 'x', frame: offset },
    payload: {},
    raw: `frame ${offset}`,
  };
}

function rows(offset: number, count = 1): MappedRow[] {
  return Array.from({ length: count }, (_, i) => ({
    table: 'trades' as const,
    row: { trade_id: `${offset}/${i}`, _offset: BigInt(offset) },
  }));
}

/** Feeds offsets (each giving `perRecord` rows) and returns the batches cut, as [first, last] pairs. */
function feed(batcher: PartitionBatcher, offsets: number[], perRecord = 1): Batch[] {
  const out: Batch[] = [];
  for (const offset of offsets) {
    if (batcher.takes(BigInt(offset)))
      out.push(...batcher.add(BigInt(offset), rows(offset, perRecord), record(offset)));
  }
  return out;
}

const ranges = (batches: Batch[]) => batches.map((b) => [Number(b.range.first), Number(b.range.last)]);
const fresh: PartitionStart = { stored: -1n, unfinished: [] };

/** A range recorded `before` with a round's token and never `after`. */
const unfinished = (first: bigint, last: bigint) => ({
  first,
  last,
  tokens: new Map([['trades', 'trades:round:r1']]),
  recordedAtUs: 0n,
});

describe('PartitionBatcher', () => {
  it('cuts a batch once it holds maxRows rows, at a record boundary', () => {
    const batcher = new PartitionBatcher('t', 0, fresh, LIMITS);
    expect(ranges(feed(batcher, [0, 1, 2, 3, 4, 5, 6, 7, 8]))).toEqual([
      [0, 3],
      [4, 7],
    ]);
    // A record's rows are never split: three rows each, so a batch ends after the second record.
    const wide = new PartitionBatcher('t', 1, fresh, LIMITS);
    const batches = feed(wide, [0, 1, 2, 3], 3);
    expect(ranges(batches)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(batches[0]!.tables.get('trades')).toHaveLength(6);
  });

  it('skips what is already stored when the bus delivers it again', () => {
    const batcher = new PartitionBatcher('t', 0, { stored: 5n, unfinished: [] }, LIMITS);
    expect(batcher.takes(5n)).toBe(false);
    expect(ranges(feed(batcher, [3, 4, 5, 6, 7, 8, 9]))).toEqual([[6, 9]]);
  });

  it('rebuilds a range left unfinished by a crash exactly, whatever the bounds say, then goes on as usual', () => {
    // The crashed loader had recorded `before` for 10..16 (seven records, more than maxRows now).
    const start: PartitionStart = { stored: 9n, unfinished: [unfinished(10n, 16n)] };
    const batcher = new PartitionBatcher('t', 0, start, LIMITS);
    const batches = feed(batcher, [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(ranges(batches)).toEqual([
      [10, 16],
      [17, 20],
    ]);
    // With the tokens it was recorded with.
    expect(batches[0]!.rebuilt?.tokens.get('trades')).toBe('trades:round:r1');
    expect(batches[0]!.tables.get('trades')).toHaveLength(7);
    expect(batches[1]!.rebuilt).toBeUndefined();
  });

  it('keeps the recorded range of an unfinished batch even when some of its offsets never come again', () => {
    const start: PartitionStart = { stored: -1n, unfinished: [unfinished(0n, 5n)] };
    const batcher = new PartitionBatcher('t', 0, start, LIMITS);
    // Offsets 3 and 5 are gone (compaction): the batch is still [0, 5], cut when 6 arrives.
    expect(ranges(feed(batcher, [0, 1, 2, 4, 6]))).toEqual([[0, 5]]);
  });

  it('never lets a new batch reach into an unfinished range', () => {
    const start: PartitionStart = { stored: 1n, unfinished: [unfinished(4n, 6n)] };
    const batcher = new PartitionBatcher('t', 0, start, LIMITS);
    // Offset 3 (a hole before it was recorded, say) starts an ordinary batch, cut as 4 arrives.
    expect(ranges(feed(batcher, [3, 4, 5, 6]))).toEqual([
      [3, 3],
      [4, 6],
    ]);
  });

  it('cuts on time, but never an unfinished range, which must end exactly where it was recorded', () => {
    let now = 0;
    const clock = () => now;
    const batcher = new PartitionBatcher('t', 0, fresh, LIMITS, clock);
    feed(batcher, [0, 1]);
    now = 999;
    expect(batcher.sealIfDue()).toBeUndefined();
    now = 1_000;
    expect(ranges([batcher.sealIfDue()!])).toEqual([[0, 1]]);

    const rebuilding = new PartitionBatcher('t', 1, { stored: -1n, unfinished: [unfinished(0n, 9n)] }, LIMITS, clock);
    feed(rebuilding, [0, 1]);
    now = 10_000;
    expect(rebuilding.sealIfDue()).toBeUndefined();
    expect(rebuilding.sealForStop()).toBeUndefined();
  });

  it('keeps the records behind the rows and the newest receive time', () => {
    const batcher = new PartitionBatcher('t', 0, fresh, LIMITS);
    const [batch] = feed(batcher, [0, 1, 2, 3]);
    expect([...batch!.records.keys()]).toEqual([0n, 1n, 2n, 3n]);
    expect(batch!.maxReceivedUs).toBe(1_700_000_000_000_003n);
  });
});
