import { bookChangeSchema, type BookChangePayload } from '../book-change.ts';
import { declareKind } from '../kind.ts';
import { MARKET_BOOKS_TOPIC } from './book-snapshot.ts';

/** `book_change`: book updates of one market in capture's lean form (src/records/book-change.ts). */
export const bookChange = declareKind<BookChangePayload>()({
  name: 'book_change',
  schema: bookChangeSchema,
  topic: {
    ...MARKET_BOOKS_TOPIC,
    key: {
      what: 'condition_id',
      // The lean form names tokens only: the producer knows their condition.
      of: (payload, hints) => hints.conditionId || (payload.t[0]?.[0] ?? ''),
    },
  },
  tables: ['book_changes'],
  producer: 'capture',
  from: "capture's lean form of many updates `{t: [[token_id, first_sequence]…], u: [[token, d_received_us, venue_time, d_frame, venue_sequence, s\\|d\\|r, bids, asks(, raw)]…]}` (src/capture/README.md), one row per level of each update, each with its update's `_received_at` and `_raw`; the earlier one-frame form and a `changes` list are read too",
});
