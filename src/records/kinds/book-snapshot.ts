import { bookSnapshotSchema, type BookSnapshotPayload } from '../book-snapshot.ts';
import { declareKind, MARKET_TOPIC } from '../kind.ts';
import { conditionOrToken } from './keys.ts';

/** Snapshots travel with the changes they anchor, so a replay sees them in order. */
export const MARKET_BOOKS_TOPIC = { suffix: 'market.books', partitions: 12, ...MARKET_TOPIC, lane: 'bulk' } as const;

/** `book_snapshot`: a whole book, from REST or the stream (src/records/book-snapshot.ts). */
export const bookSnapshot = declareKind<BookSnapshotPayload>()({
  name: 'book_snapshot',
  schema: bookSnapshotSchema,
  topic: { ...MARKET_BOOKS_TOPIC, key: conditionOrToken },
  tables: ['book_snapshots'],
  producer: 'capture',
  from: 'capture: `{…, reason, source: rest\\|stream, as_of, bids, asks}`',
});
