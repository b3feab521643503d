import { integer, list, loose, requiredScalar, scalar, streamData } from './schema.ts';

/** Why a full book_snapshot record was written. */
export type SnapshotReason =
  | 'connect'
  | 'reconnect'
  | 'sequence_reset'
  | 'frames_missed'
  | 'resubscribe'
  | 'subscribe'
  | 'anchor'
  | 'hour'
  | 'first_book';

/**
 * `book_snapshot` — topic market.books (with the changes it anchors), key condition_id. The whole
 * ladder of one token at capture sequence `sequence`. Made by capture (src/capture/books/token-books.ts);
 * stored in `book_snapshots`.
 */
export type BookSnapshotPayload = {
  token_id: string;
  condition_id: string;
  /** The capture sequence the ladder stands at (decimal): the state after that book_change. */
  sequence: string;
  venue_sequence: number | null;
  reason: SnapshotReason;
  /** `rest`: read from GET /trade/v1/orderbook/{token_id}; `stream`: our ladder. */
  source: 'rest' | 'stream';
  /** ISO time with µs: the instant the ladder holds from. */
  as_of: string;
  /** `[price_micro, size_micro]`, best first. */
  bids: Array<[string, string]>;
  asks: Array<[string, string]>;
};

/**
 * A `book_snapshot` payload at the bus boundary: a level is a `[price, size]` pair or
 * `{price_micro, size_micro}` (`shares_micro` read too; the loader checks each level); `hash` an
 * earlier name of `book_hash`; the whole frame read through to its data.
 */
export const bookSnapshotSchema = streamData(
  loose({
    bids: list,
    asks: list,
    token_id: requiredScalar,
    condition_id: scalar,
    sequence: integer,
    venue_sequence: integer,
    source: scalar,
    kind: scalar,
    reason: scalar,
    book_hash: scalar,
    hash: scalar,
  }),
);
