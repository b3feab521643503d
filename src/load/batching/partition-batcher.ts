import type { ReceivedRecord } from '../../bus/record.ts';
import type { MappedRow, Row, TableName } from '../mapping/types.ts';
import type { Batch, OffsetRange, UnfinishedRange } from './batch.ts';

export interface BatchLimits {
  /** A batch is cut once it holds this many rows… */
  maxRows: number;
  /** …or this many bytes of raw payload… */
  maxBytes: number;
  /** …or its first record has waited this long (ms). */
  maxDelayMs: number;
}

/** Where a partition stands in the warehouse when its loader starts reading it. */
export interface PartitionStart {
  /** Last offset known stored (an `after` range), or -1 when none. */
  stored: bigint;
  /** Ranges recorded `before` an insert but never `after` it, oldest first: rebuilt exactly. */
  unfinished: UnfinishedRange[];
}

interface OpenBatch {
  range: OffsetRange;
  tables: Map<TableName, Row[]>;
  records: Map<bigint, ReceivedRecord>;
  rowCount: number;
  bytes: number;
  maxReceivedUs: bigint;
  openedAt: number;
  /** Set when rebuilding an unfinished range: the batch must end exactly at its last offset. */
  fixed: boolean;
}

/**
 * Cuts one partition's deliveries into batches. New batches end when a size or time bound is
 * reached; a range left unfinished by a crash is rebuilt exactly (same first and last offset, so
 * the same tokens), whatever the bounds, before anything after it. Deliveries at or below what is
 * already stored or batched are skipped: the bus redelivers from its last commit.
 */
export class PartitionBatcher {
  /** Lowest offset not yet taken into a batch. */
  #next: bigint;
  readonly #unfinished: UnfinishedRange[];
  #open: OpenBatch | undefined;

  constructor(
    readonly topic: string,
    readonly partition: number,
    start: PartitionStart,
    private readonly limits: BatchLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#next = start.stored + 1n;
    this.#unfinished = start.unfinished.filter((range) => range.last > start.stored);
  }

  /** Whether a delivery at `offset` is new (anything lower is stored or already batched). */
  takes(offset: bigint): boolean {
    return offset >= this.#next;
  }

  /** Last offset taken into a batch (stored or not), -1 when none. */
  get taken(): bigint {
    return this.#next - 1n;
  }

  /** The bus no longer holds the offsets below `offset` (a recorded gap): the next one taken is `offset` or later. */
  skipTo(offset: bigint): void {
    if (offset > this.#next) this.#next = offset;
  }

  /** Adds a delivery's rows (from mapDelivery); returns the batches this completes. */
  add(offset: bigint, rows: readonly MappedRow[], record: ReceivedRecord | undefined): Batch[] {
    const done: Batch[] = [];
    this.#passUnfinished(offset, done);
    const pending = this.#unfinished[0];
    // A new batch never reaches into an unfinished range: that one is rebuilt on its own.
    if (this.#open && !this.#open.fixed && pending && offset >= pending.first) done.push(this.#seal());
    const open = (this.#open ??= this.#openAt(offset, pending));
    open.range.last = offset;
    for (const { table, row } of rows) {
      const list = open.tables.get(table);
      if (list) list.push(row);
      else open.tables.set(table, [row]);
    }
    open.rowCount += rows.length;
    if (record) {
      open.records.set(offset, record);
      open.bytes += record.raw?.length ?? 0;
      if (record.receivedAtUs > open.maxReceivedUs) open.maxReceivedUs = record.receivedAtUs;
    }
    this.#next = offset + 1n;
    if (
      open.fixed
        ? offset >= this.#unfinished[0]!.last
        : open.rowCount >= this.limits.maxRows || open.bytes >= this.limits.maxBytes
    ) {
      done.push(this.#seal());
    }
    return done;
  }

  /**
   * The open batch, if its first record will have waited `maxDelayMs` within `aheadMs` (the time
   * until the caller looks again, so no record waits longer). Never an unfinished range: it must
   * end exactly where it was recorded.
   */
  sealIfDue(aheadMs = 0): Batch | undefined {
    const open = this.#open;
    if (!open || open.fixed || this.now() + aheadMs - open.openedAt < this.limits.maxDelayMs) return undefined;
    return this.#seal();
  }

  /** When the open batch got its first record (`now()` clock), if there is one that may be cut now (not an unfinished
   * range). */
  get openSince(): number | undefined {
    return this.#open && !this.#open.fixed ? this.#open.openedAt : undefined;
  }

  /** The open batch, whatever its age (its lane goes to the warehouse now), unless it is an unfinished range. */
  sealOpen(): Batch | undefined {
    return this.#open && !this.#open.fixed ? this.#seal() : undefined;
  }

  /**
   * Everything batchable now, at a stop. An unfinished range still missing records is left out
   * (the next start rebuilds it), and so is anything taken after it.
   */
  sealForStop(): Batch | undefined {
    if (!this.#open || this.#open.fixed) return undefined;
    return this.#seal();
  }

  /** Unfinished ranges whose records the bus no longer has (or skipped): sealed with what came, or dropped. */
  #passUnfinished(offset: bigint, done: Batch[]): void {
    while (this.#unfinished[0] && offset > this.#unfinished[0].last) {
      if (this.#open?.fixed) done.push(this.#seal());
      else this.#unfinished.shift();
    }
  }

  #openAt(offset: bigint, pending: UnfinishedRange | undefined): OpenBatch {
    const fixed = pending !== undefined && offset >= pending.first;
    return {
      range: { first: fixed ? pending.first : offset, last: offset },
      tables: new Map(),
      records: new Map(),
      rowCount: 0,
      bytes: 0,
      maxReceivedUs: 0n,
      openedAt: this.now(),
      fixed,
    };
  }

  #seal(): Batch {
    const open = this.#open!;
    this.#open = undefined;
    const rebuilt = open.fixed ? this.#unfinished.shift()! : undefined;
    const range = rebuilt ?? open.range;
    return {
      topic: this.topic,
      partition: this.partition,
      range: { first: range.first, last: range.last },
      tables: open.tables,
      records: open.records,
      rowCount: open.rowCount,
      maxReceivedUs: open.maxReceivedUs,
      ...(rebuilt ? { rebuilt } : {}),
    };
  }
}
