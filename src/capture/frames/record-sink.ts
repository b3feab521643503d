import type { BusRecord } from '../../records/index.ts';

/**
 * Where capture's records go, passed down from the top: the publisher at the end (which hands
 * them to the bus), with the book batcher in front of it on the market stream. Writing never
 * blocks: back-pressure pauses the streams instead (publisher.ts).
 */
export interface RecordSink {
  write(records: readonly BusRecord[]): void;
}
