import type { Delivery } from '../bus.ts';
import { Signal } from '../signal.ts';

/** How much one partition of the embedded bus may hold before publishers wait. */
export interface Capacity {
  records: number;
  bytes: number;
}

/** What a delivery of the entry carries (its offset aside): the record, or bytes that are not one. */
export type KeptDelivery = Delivery extends infer D ? (D extends unknown ? Omit<D, 'offset'> : never) : never;

export interface LogEntry {
  key: string;
  /** What consumers get: the record as published (see embedded-records.ts), as Kafka would hand it over. */
  delivery: KeptDelivery;
  /** About its size on the wire, counted against the partition's capacity. */
  bytes: number;
}

const DROPPED: LogEntry = { key: '', delivery: { ok: false, reason: 'dropped', bytes: new Uint8Array() }, bytes: 0 };

/**
 * One topic-partition of the embedded bus: an append-only log whose head is dropped once every
 * group has committed past it. What is kept — delivered or not — counts against the capacity,
 * because an uncommitted record may have to be delivered again.
 */
export class PartitionLog {
  private entries: LogEntry[] = [];
  /** Index in `entries` of the earliest kept record (dropping is lazy, see trimBelow). */
  private head = 0;
  private headOffset = 0;
  private keptBytes = 0;
  private readonly room = new Signal();

  constructor(private readonly capacity: Capacity) {}

  /** Offset of the earliest record still kept. */
  get earliest(): number {
    return this.headOffset;
  }

  /** Offset the next record will get. */
  get end(): number {
    return this.headOffset + this.entries.length - this.head;
  }

  /** A record bigger than the whole byte budget still goes in alone, or it would wait forever. */
  hasRoomFor(bytes: number): boolean {
    const kept = this.entries.length - this.head;
    if (kept === 0) return true;
    return kept < this.capacity.records && this.keptBytes + bytes <= this.capacity.bytes;
  }

  append(entry: LogEntry): void {
    this.entries.push(entry);
    this.keptBytes += entry.bytes;
  }

  /** Up to `max` records from `from` (or from the earliest kept one, if that is later). */
  read(from: number, max: number): { first: number; entries: LogEntry[] } {
    const first = Math.max(from, this.headOffset);
    const start = this.head + (first - this.headOffset);
    return { first, entries: this.entries.slice(start, start + max) };
  }

  /** Drops the records below `offset` and wakes publishers waiting for room. */
  trimBelow(offset: number): void {
    const drop = Math.min(offset, this.end) - this.headOffset;
    if (drop <= 0) return;
    for (let i = this.head; i < this.head + drop; i++) {
      this.keptBytes -= this.entries[i]!.bytes;
      this.entries[i] = DROPPED; // let the text go now, not at the next compaction
    }
    this.head += drop;
    this.headOffset += drop;
    // Compact now and then rather than shifting the array on every commit.
    if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    this.room.notify();
  }

  waitForRoom(): Promise<void> {
    return this.room.wait();
  }

  /** Releases waiting publishers without making room (the bus is closing). */
  releaseWaiters(): void {
    this.room.notify();
  }
}
