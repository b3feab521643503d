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
