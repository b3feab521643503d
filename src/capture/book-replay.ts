import { BookLadder, type Level, type LevelChange } from './book-ladder.ts';

/**
 * Rebuilds a token's ladder at any instant from what capture stored: the latest full snapshot at
 * or before the instant, then every level change after it up to the instant. This backs the
 * replay checks and `tapehouse book`.
 */

export interface SnapshotRow {
  tokenId: string;
  /** Our receive time, µs since the epoch. */
  atUs: bigint;
  /** The per-token capture sequence the snapshot stands at. */
  sequence: bigint;
  bids: Level[];
  asks: Level[];
}

export interface ChangeRow extends LevelChange {
  tokenId: string;
  atUs: bigint;
  sequence: bigint;
}

export interface ReplayedBook {
  ladder: BookLadder;
  /** The sequence and time of the last snapshot or change applied. */
  sequence: bigint;
  atUs: bigint;
}

/** Rows of one token in any order; returns null when no snapshot exists at or before `atUs`. */
export function replayBook(snapshots: readonly SnapshotRow[], changes: readonly ChangeRow[], atUs: bigint): ReplayedBook | null {
  let base: SnapshotRow | null = null;
  for (const s of snapshots) {
    if (s.atUs <= atUs && (base === null || s.sequence > base.sequence || (s.sequence === base.sequence && s.atUs > base.atUs))) base = s;
  }
  if (!base) return null;
  const ladder = new BookLadder();
  ladder.replace(base.bids, base.asks);
  const after = changes
    .filter((c) => c.sequence > base.sequence && c.atUs <= atUs)
    .sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
  ladder.apply(after);
  const last = after.at(-1);
  return { ladder, sequence: last?.sequence ?? base.sequence, atUs: last?.atUs ?? base.atUs };
}
