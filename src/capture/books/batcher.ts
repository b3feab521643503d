import { bookChangeRecord, bookKey, type BookUpdate, type BusRecord } from '../../records/index.ts';
import type { RecordSink } from '../frames/index.ts';

export interface BookBatchLimits {
  /** Updates held at most (all keys together) before everything is written. */
  maxUpdates: number;
  /** How long the oldest held update may wait, in ms. */
  maxDelayMs: number;
  /** Wire bytes held at most, about (levels and raw frames), so no record nears the topic's limit. */
  maxBytes: number;
}

export const BOOK_BATCH_DEFAULTS: BookBatchLimits = { maxUpdates: 1_000, maxDelayMs: 1_000, maxBytes: 256 * 1024 };

/** Wire bytes of an update, about: a level is two numbers, a raw frame its text. */
const bytesOf = (update: BookUpdate): number => 40 + 18 * update.changes.length + (update.raw?.length ?? 0);

/**
 * Gathers book updates into `book_change` records of many updates each (one record per key per
 * flush), in front of the publisher. What is held is always written whole and in order:
 * - every key at once, keys in the order of their first held update, so on each partition the
 *   records' receive times (their first update's) never go backwards, and every update of a
 *   later flush was received after every update of an earlier one;
 * - before any `book_snapshot` or `capture_gap` passes (a snapshot stands at the sequence of the
 *   changes before it; a gap must follow what was received before it);
 * - when `maxUpdates` (or about `maxBytes`) are held, when the oldest waited `maxDelayMs` (`flushDue`, called on a
 * timer
 *   and on every update), when a key's updates would come from another connection, and on `flush()`.
 */
export interface BookBatcherOptions {
  /** Where records go, held updates first when they must precede. */
  sink: RecordSink;
  /** Wall time in µs (the oldest held update's age). */
  nowUs(): bigint;
  limits?: BookBatchLimits;
}

export class BookBatcher implements RecordSink {
  readonly #held = new Map<string, BookUpdate[]>();
  #count = 0;
  #bytes = 0;
  /** When the oldest held update was handed over (µs), for the durable-through instant. */
  #sinceUs: bigint | null = null;

  readonly #sink: RecordSink;
  readonly #nowUs: () => bigint;
  readonly #limits: BookBatchLimits;

  constructor(options: BookBatcherOptions) {
    this.#sink = options.sink;
    this.#nowUs = options.nowUs;
    this.#limits = options.limits ?? BOOK_BATCH_DEFAULTS;
  }

  /** One update: held until the next flush. */
  add(update: BookUpdate): void {
    const key = bookKey(update);
    let held = this.#held.get(key);
    if (held && held[0]!.origin.connectionId !== update.origin.connectionId) {
      this.flush();
      held = undefined;
    }
    if (!held) {
      held = [];
      this.#held.set(key, held);
    }
    held.push(update);
    this.#count += 1;
    this.#bytes += bytesOf(update);
    this.#sinceUs ??= this.#nowUs();
    if (this.#count >= this.#limits.maxUpdates || this.#bytes >= this.#limits.maxBytes) this.flush();
    else this.flushDue();
  }

  /** Records on their way to the bus: what is held goes first when they need it to. */
  write(records: readonly BusRecord[]): void {
    if (records.length === 0) return;
    if (this.#count > 0 && records.some((r) => r.kind === 'book_snapshot' || r.kind === 'capture_gap')) {
      this.#sink.write([...this.#drainHeld(), ...records]);
    } else {
      this.#sink.write(records);
    }
  }

  /** Writes what is held when the oldest update has waited long enough. */
  flushDue(): void {
    if (this.#sinceUs !== null && this.#nowUs() - this.#sinceUs >= BigInt(this.#limits.maxDelayMs) * 1000n)
      this.flush();
  }

  /** Writes everything held. */
  flush(): void {
    if (this.#count > 0) this.#sink.write(this.#drainHeld());
  }

  /** Everything handed over before this instant has left the batcher (null: nothing held). */
  heldSinceUs(): bigint | null {
    return this.#sinceUs;
  }

  get held(): number {
    return this.#count;
  }

  #drainHeld(): BusRecord[] {
    const records: BusRecord[] = [];
    for (const updates of this.#held.values()) records.push(bookChangeRecord(updates));
    this.#held.clear();
    this.#count = 0;
    this.#bytes = 0;
    this.#sinceUs = null;
    return records;
  }
}
