import type { OffsetRange } from '../batching/batch.ts';

/**
 * A range recorded `before` and read back on an assignment, against where its partition stands:
 * rebuilt exactly, or left out as a killed loader's late `before` (state/loader-offsets.ts). In a
 * history without late rows, unfinished ranges never overlap and all start above the stored one;
 * a request a killed loader had on the wire can still land after the next loader read where
 * storing stood and cut its own ranges from there. Its rows were never sent (data goes only once
 * its `before` is acknowledged): rebuilt, they would be stored twice.
 */

/** Where a partition stands: the last offset stored (`after`), -1 when none, and the ranges kept to rebuild. */
export interface PartitionStanding {
  stored: bigint;
  unfinished: readonly OffsetRange[];
}

export const STANDINGS = [
  /** Nothing stored, nothing kept to rebuild. */
  'nothing_recorded',
  /** A range stored, nothing kept to rebuild above it. */
  'after_recorded',
  /** Ranges kept to rebuild (recorded `before`, never `after`), above what is stored, if anything is. */
  'before_recorded',
] as const;
export type Standing = (typeof STANDINGS)[number];

export const RANGE_RELATIONS = [
  /** It ends at or below the stored offset. */
  'previous',
  /** It starts at or below the stored offset and ends above it. */
  'straddling',
  /** It is a range kept to rebuild. */
  'same',
  /** It lies inside a range kept to rebuild. */
  'inside',
  /** It crosses the bounds of a range kept to rebuild, or holds one. */
  'overlapping',
  /** It starts right after the stored offset and touches no range kept to rebuild. */
  'next',
  /** It starts further up and touches no range kept to rebuild. */
  'gap',
] as const;
export type RangeRelation = (typeof RANGE_RELATIONS)[number];

export type RangeDecision =
  /** Rebuilt exactly, sent again with the tokens it was recorded with. */
  | 'rebuild'
  /** A late `before`: its rows were never sent; left out (and logged). */
  | 'leave_out'
  /** Cannot happen in that standing (the relation needs something the standing lacks). */
  | 'impossible';

export function standingOf(partition: PartitionStanding): Standing {
  if (partition.unfinished.length > 0) return 'before_recorded';
  return partition.stored >= 0n ? 'after_recorded' : 'nothing_recorded';
}

/** How `range` relates to the partition's stored offset and the ranges kept to rebuild. */
export function relate(range: OffsetRange, partition: PartitionStanding): RangeRelation {
  const { stored } = partition;
  if (range.last <= stored) return 'previous';
  if (range.first <= stored) return 'straddling';
  for (const kept of partition.unfinished) {
    if (range.first > kept.last || kept.first > range.last) continue;
    if (range.first === kept.first && range.last === kept.last) return 'same';
    return range.first >= kept.first && range.last <= kept.last ? 'inside' : 'overlapping';
  }
  return range.first === stored + 1n ? 'next' : 'gap';
}

/**
 * What becomes of a recorded range, by standing and relation. Read newest recorded first, against
 * the ranges kept so far: of overlapping ranges the one recorded last is rebuilt — had the late one
 * been seen when the newer was cut, that one would have rebuilt it instead. The same range twice
 * is one range (its rows are grouped by range, its newest tokens kept).
 */
export function decideRecorded(standing: Standing, relation: RangeRelation): RangeDecision {
  switch (relation) {
    case 'previous':
    case 'straddling':
      // At or below what is stored: recorded after a later range was stored.
      return standing === 'nothing_recorded' ? 'impossible' : 'leave_out';
    case 'same':
    case 'inside':
    case 'overlapping':
      // A newer range covers some of it: cut by a loader that did not see it.
      return standing === 'before_recorded' ? 'leave_out' : 'impossible';
    case 'next':
    case 'gap':
      // Above everything stored and kept: the bus may have deleted some offsets below it (rebuilt from what is left).
      return 'rebuild';
  }
}
