import type { ReceivedRecord } from '../../bus/record.ts';
import { timeMs, type Payload } from './fields.ts';

/** Our receive time in epoch milliseconds. */
export function receivedMs(record: ReceivedRecord): number {
  return Number(record.receivedAtUs / 1000n);
}

/**
 * When the venue said the data held: the frame's or response's own time (`venueTime`), else our
 * receive time. Used as `observed_at`, the version of entity observations.
 */
export function observedMs(record: ReceivedRecord): number {
  return timeMs(record.venueTime, 'venue_time') ?? receivedMs(record);
}

/** The first time field of the payload that is present, else the record's venue or receive time. */
export function eventMs(record: ReceivedRecord, p: Payload, fields: readonly string[]): number {
  for (const field of fields) {
    const value = timeMs(p[field], field);
    if (value !== undefined) return value;
  }
  return observedMs(record);
}

/** A stored row's place in the venue's order of frames (sql/README.md, "Order within one time"). */
export interface FrameOrder {
  /** Capture's number of the connection the frame came on (it grows with the connection's start). */
  frame_conn: number;
  /** The frame envelope's `seq`: the venue's number of the frame on that connection. */
  frame_seq: number;
}

/** Where a stream record's frame stands: 0 for what is not known (a REST read, a record from before it was kept). */
export function frameOrder(record: ReceivedRecord): FrameOrder {
  const s = record.source;
  return s.type === 'stream' ? { frame_conn: s.conn ?? 0, frame_seq: s.seq ?? 0 } : { frame_conn: 0, frame_seq: 0 };
}
