import type { ReceivedRecord } from '../../bus/record.ts';
import { readBookUpdates } from '../../records/index.ts';
import { BookLadder, type Level, type LevelChange, type Side } from './ladder.ts';
import { isoToMicros } from '../frames/index.ts';
import { compareBigints } from '../../util/compare.ts';

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
export function replayBook(
  snapshots: readonly SnapshotRow[],
  changes: readonly ChangeRow[],
  atUs: bigint,
): ReplayedBook | null {
  let base: SnapshotRow | null = null;
  for (const s of snapshots) {
    if (
      s.atUs <= atUs &&
      (base === null || s.sequence > base.sequence || (s.sequence === base.sequence && s.atUs > base.atUs))
    )
      base = s;
  }
  if (!base) return null;
  const ladder = new BookLadder();
  ladder.replace(base.bids, base.asks);
  const after = changes
    .filter((c) => c.sequence > base.sequence && c.atUs <= atUs)
    .sort((a, b) => compareBigints(a.sequence, b.sequence));
  ladder.apply(after);
  const last = after.at(-1);
  return { ladder, sequence: last?.sequence ?? base.sequence, atUs: last?.atUs ?? base.atUs };
}

/**
 * The replay rows of one token from records as published (`book_snapshot`, `book_change`; other
 * kinds and tokens are ignored). A snapshot holds from its `as_of`; a change from the venue's time
 * of its frame, or our receive time when the frame had none.
 */
export function bookRowsOf(
  records: readonly ReceivedRecord[],
  tokenId: string,
): { snapshots: SnapshotRow[]; changes: ChangeRow[] } {
  const snapshots: SnapshotRow[] = [];
  const changes: ChangeRow[] = [];
  for (const r of records) {
    if (r.kind === 'book_change') {
      for (const u of readBookUpdates(r)) {
        if (u.tokenId !== tokenId) continue;
        // The update's instant: the venue's time of its frame, else our receive time.
        const atUs = u.venueMs !== null ? BigInt(u.venueMs) * 1000n : (isoToMicros(u.venueTime) ?? u.receivedAtUs);
        const row = { tokenId, atUs, sequence: u.sequence };
        pushChanges(changes, row, 'bid', u.bids);
        pushChanges(changes, row, 'ask', u.asks);
      }
      continue;
    }
    if (r.kind !== 'book_snapshot') continue;
    const p = r.payload as unknown as SnapshotPayload;
    if (p.token_id !== tokenId) continue;
    snapshots.push({
      tokenId,
      atUs: isoToMicros(p.as_of) ?? r.receivedAtUs,
      sequence: BigInt(p.sequence),
      bids: p.bids.map(toLevel),
      asks: p.asks.map(toLevel),
    });
  }
  return { snapshots, changes };
}

/** The ladder of a token at an instant (µs since the epoch), from published records; null before its first snapshot. */
export function replayBookRecords(
  records: readonly ReceivedRecord[],
  tokenId: string,
  atUs: bigint,
): ReplayedBook | null {
  const { snapshots, changes } = bookRowsOf(records, tokenId);
  return replayBook(snapshots, changes, atUs);
}

function pushChanges(
  out: ChangeRow[],
  row: Omit<ChangeRow, keyof LevelChange>,
  side: Side,
  flat: ReadonlyArray<number | string>,
): void {
  for (let i = 0; i < flat.length; i += 2)
    out.push({ ...row, side, priceMicro: Number(flat[i]), sizeMicro: String(flat[i + 1]) });
}

interface SnapshotPayload {
  token_id: string;
  sequence: string;
  as_of?: string;
  bids: Array<[string, string]>;
  asks: Array<[string, string]>;
}

function toLevel([price, size]: [string, string]): Level {
  return { priceMicro: Number(price), sizeMicro: size };
}
