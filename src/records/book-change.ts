import { eitherForm, integer, leaf, list, loose, requiredScalar, scalar, streamData } from './schema.ts';

/** The payload of `book_change` records; book-change-form.ts writes and reads it (the form is described there). */

/** One update as it is written: `[token, d_received_us, venue_time, d_frame, venue_sequence, update, bids, asks(,
 * raw)]`. */
export type BookUpdateEntry =
  | [
      number,
      number,
      string | number | null,
      number,
      number | null,
      's' | 'd' | 'r',
      Array<number | string>,
      Array<number | string>,
    ]
  | [
      number,
      number,
      string | number | null,
      number,
      number | null,
      's' | 'd' | 'r',
      Array<number | string>,
      Array<number | string>,
      string,
    ];

/**
 * `book_change` — topic market.books, key condition_id (or the token while its condition is not
 * known). Made by capture (books.ts, book-batcher.ts); stored one `book_changes` row per level.
 */
export type BookChangePayload = {
  /** The record's tokens, each with the capture sequence (decimal) of its first update here. */
  t: Array<[string, string]>;
  u: BookUpdateEntry[];
  /** Each update's frame envelope `seq`, null for a REST re-seed or a frame without one; absent when none has one. */
  q?: Array<number | null>;
};

/** A level a book update changed: its new size ("0" removes it). */
export interface LevelChange {
  side: 'bid' | 'ask';
  priceMicro: number;
  sizeMicro: string;
}

/**
 * Whether a `book_change` payload has the lean form (earlier records held one frame's levels as
 * `bids`/`asks` pairs): it has its `t` or `u`, so a misfit of either is named as such.
 */
export function isLeanForm(payload: unknown): boolean {
  return (
    typeof payload === 'object' && payload !== null && !Array.isArray(payload) && ('u' in payload || 't' in payload)
  );
}

/**
 * A `book_change` payload at the bus boundary, in either form. The lean form's envelope is checked
 * here and its updates, entry by entry, by `readBookUpdates` (book-change-form.ts), which names
 * the part that does not fit (`u[3][5]`) at a fraction of the cost of a schema per entry: book
 * records are most of what the loaders read. The earlier form — one frame's `bids`/`asks` lists of
 * `[price, size]` pairs (or a `changes` list of `{side, price_micro, size_micro}`) with `sequence`,
 * `venue_sequence` and `update` (or `update_kind`, `kind`), the whole frame read through to its
 * data — is read as before; its levels are checked by the loader.
 */
export const bookChangeSchema = eitherForm(
  isLeanForm,
  loose({
    t: leaf<Array<[string, string]>>(Array.isArray, 'a list of [token_id, sequence]'),
    u: leaf<BookUpdateEntry[]>((u) => Array.isArray(u) && u.length > 0, 'a non-empty list of updates'),
  }),
  streamData(
    loose({
      token_id: requiredScalar,
      condition_id: scalar,
      sequence: integer,
      venue_sequence: integer,
      update: scalar,
      update_kind: scalar,
      kind: scalar,
      bids: list,
      asks: list,
      changes: list,
    }),
  ),
);
