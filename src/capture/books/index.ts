/**
 * Each token's order book as capture keeps it: replacement snapshots turned into level changes
 * (`TokenBooks`), batched into records, re-seeded from REST, and replayed from the warehouse (`bookAt`).
 */
export { BOOK_BATCH_DEFAULTS, BookBatcher, type BookBatchLimits } from './batcher.ts';
export { bookAt } from './history.ts';
export { PRICE_ONE_MICRO } from './levels.ts';
export { Reseeder, type ReseedOutcome, type ReseedTask } from './reseeder.ts';
export {
  TokenBooks,
  readSequence,
  type BookFrame,
  type BookOutput,
  type RestBook,
  type SnapshotReason,
} from './token-books.ts';
