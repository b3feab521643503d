/** The payload of `book_change` records; book-change-form.ts writes and reads it (the form is described there). */

/** One update as it is written: `[token, d_received_us, venue_time, d_frame, venue_sequence, update, bids, asks(, raw)]`. */
export type BookUpdateEntry =
  | [number, number, string | number | null, number, number | null, 's' | 'd' | 'r', Array<number | string>, Array<number | string>]
  | [number, number, string | number | null, number, number | null, 's' | 'd' | 'r', Array<number | string>, Array<number | string>, string];

/**
 * `book_change` — topic market.books, key condition_id (or the token while its condition is not
 * known). Made by capture (books.ts, book-batcher.ts); stored one `book_changes` row per level.
 */
export type BookChangePayload = {
  /** The record's tokens, each with the capture sequence (decimal) of its first update here. */
  t: Array<[string, string]>;
  u: BookUpdateEntry[];
};

/** A level a book update changed: its new size ("0" removes it). */
export interface LevelChange {
  side: 'bid' | 'ask';
  priceMicro: number;
  sizeMicro: string;
}
