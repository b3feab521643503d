import type { Unread } from './json.ts';
import { integer, loose, requiredScalar, scalar, streamData } from './schema.ts';
import { inRange } from './schema.ts';

/**
 * `quote` — topic market.quotes, key condition_id. The `best_quote` frame's data (null: an empty
 * side). Made by capture (src/capture/market/market-records.ts); stored in `quotes`.
 */
export interface QuotePayload extends Unread {
  token_id: string;
  condition_id?: string;
  market_id?: string;
  /** The venue's book sequence. */
  sequence?: number | string;
  best_bid_micro?: string | null;
  best_ask_micro?: string | null;
  best_bid_size_micro?: string | null;
  best_ask_size_micro?: string | null;
  kind?: string;
  /** `book`: the sizes were not in the frame (the venue's best quote has none) but taken from capture's ladder at the
   * quote's sequence. */
  sizes_from?: string;
}

/** A `quote` payload at the bus boundary: amounts as text or numbers, null an empty side; the whole frame read through
 * to its data. */
export const quoteSchema = streamData(
  loose({
    token_id: requiredScalar,
    condition_id: scalar,
    sequence: integer,
    best_bid_micro: integer,
    best_ask_micro: integer,
    best_bid_size_micro: integer,
    best_ask_size_micro: integer,
    source: scalar,
    // A side may be empty (null); a quoted price lies inside (0, 1) and a quoted size is not negative.
  }).superRefine(inRange(['best_bid_micro', 'best_ask_micro'], ['best_bid_size_micro', 'best_ask_size_micro'])),
);
