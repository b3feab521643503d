import type { BusRecord, Origin } from '../../records/index.ts';
import type { Clock } from '../../util/clock.ts';
import {
  BookBatcher,
  TokenBooks,
  type BookBatchLimits,
  type BookFrame,
  type BookOutput,
  type RestBook,
  type SnapshotReason,
} from '../books/index.ts';
import { SeenTrades } from './market-records.ts';
import type { RecordSink } from '../frames/index.ts';

export interface MarketFeedOptions {
  /** Where the records go (the publisher). */
  sink: RecordSink;
  clock: Clock;
  /** How book updates are gathered into `book_change` records (default BOOK_BATCH_DEFAULTS). */
  batch?: BookBatchLimits;
  /** The books (default: new ones, sequences from the clock's wall time: README "Sequences"). */
  books?: TokenBooks;
}

/**
 * Where every market connection's frames go down to, one way: the books (a book frame's updates
 * and records), the memory of trades seen, and the record sink, with the book batcher in front of
 * it (what is held goes first when a snapshot or gap must follow it). One per market capture.
 */
export class MarketFeed implements RecordSink {
  readonly books: TokenBooks;
  readonly trades = new SeenTrades();
  readonly #batcher: BookBatcher;
  /** Without REST books: the snapshot is written from the next streamed book of the token. */
  readonly #awaitingStreamBook = new Map<string, SnapshotReason>();

  constructor(options: MarketFeedOptions) {
    const { clock } = options;
    this.books = options.books ?? new TokenBooks({ sequenceBase: clock.epochMicros() * 1000n });
    this.#batcher = new BookBatcher({ sink: options.sink, nowUs: () => clock.epochMicros(), limits: options.batch });
  }

  /** Records of market capture: held book updates first when they must precede. */
  write(records: readonly BusRecord[]): void {
    this.#batcher.write(records);
  }

  /** An `orderbook` frame: its updates and records; the token's snapshot too when one waits for a streamed book. */
  book(frame: BookFrame): void {
    const output = this.books.onFrame(frame);
    const tokenId = frame.data.token_id;
    const reason = typeof tokenId === 'string' ? this.#awaitingStreamBook.get(tokenId) : undefined;
    if (reason !== undefined) {
      this.#awaitingStreamBook.delete(tokenId as string);
      const snapshot = this.books.snapshot(tokenId as string, reason, frame.origin.receivedAtUs);
      if (snapshot) output.records.push(snapshot);
    }
    this.#take(output);
  }

  /** A REST order book read for a re-seed. */
  reseeded(tokenId: string, book: RestBook, reason: SnapshotReason, origin: Origin): void {
    this.#take(this.books.reseed(tokenId, book, reason, origin));
  }

  /** No REST book for the token (no token, or not offered): the next streamed book is written whole. */
  awaitStreamBook(tokenId: string, reason: SnapshotReason): void {
    this.#awaitingStreamBook.set(tokenId, reason);
  }

  /** The token's ladder as it stands, written whole now (anchors; a failed re-seed). */
  snapshot(tokenIds: Iterable<string>, reason: SnapshotReason, nowUs: bigint, before: BusRecord[] = []): void {
    const records = before;
    for (const tokenId of tokenIds) {
      const snapshot = this.books.snapshot(tokenId, reason, nowUs);
      if (snapshot) records.push(snapshot);
    }
    this.write(records);
  }

  /** A token capture let go. */
  forget(tokenId: string): void {
    this.books.forget(tokenId);
    this.#awaitingStreamBook.delete(tokenId);
  }

  /** Writes held updates whose time is up (on a timer). */
  flushDue(): void {
    this.#batcher.flushDue();
  }

  /** Writes every held update now (drain, stop). */
  flush(): void {
    this.#batcher.flush();
  }

  /** When the oldest update not yet written was made (µs); null when none is held. */
  heldSinceUs(): bigint | null {
    return this.#batcher.heldSinceUs();
  }

  #take(output: BookOutput): void {
    for (const update of output.updates) this.#batcher.add(update);
    this.#batcher.write(output.records);
  }
}
