import type { KeptDelivery, LogEntry } from './partition-log.ts';
import { prepareRecords } from '../outgoing.ts';
import { decodeRecord, encodeRecord, type ReceivedRecord } from '../record.ts';
import type { TopicSpec } from '../topics.ts';

/**
 * A record as the embedded bus keeps it: the object itself, not its JSON. Nothing makes the bus
 * durable, so the JSON round trip (encode on publish, decode on every delivery) bought nothing but
 * CPU: 11 % of the main thread at rate 200. Consumers still get what Kafka would hand them:
 *
 * - a payload of plain JSON data (what `toJsonPayload` makes, and what the types say) reads the
 *   same from the object as from its JSON — anything else (a bigint, an undefined field, -0, NaN,
 *   a class instance) goes the JSON way, encoded and decoded, and is delivered as decoded;
 * - the envelope is checked as `decodeRecord` checks it (a bad key, source or kind is delivered as
 *   bytes that are not a record, for the consumer's dead letter), on its small fields only;
 * - a record over the topic's size limit is refused as Kafka refuses it: a cheap upper bound on its
 *   JSON size (every string at 6 bytes a character, the most JSON escapes it) clears almost every
 *   record; one that it does not clear is encoded and measured exactly.
 *
 * The size kept against the partition's byte capacity is an estimate of the JSON size (strings at
 * their length, numbers at 8, a few bytes of punctuation per field): back-pressure, not a limit.
 * Publishers hand records over and do not change them afterwards (capture and the sync jobs build
 * each record's objects afresh).
 */
export function keptEntries(spec: TopicSpec, records: readonly ReceivedRecord[]): LogEntry[] {
  return records.map((record): LogEntry => {
    const size = { estimate: 0, text: 0, plain: true };
    try {
      measure(record.payload, size);
      measure(record.raw, size);
      measure(record.source, size);
      measure(record.venueTime, size);
      measure(record.kind, size);
      measure(record.key, size);
    } catch (_) {
      size.plain = false; // nested deeper than the stack: the JSON way says what Kafka would
    }
    // `{"v":1,"kind":…,"key":…,"venue_time":…,"received_at_us":"…","source":…,"payload":…,"raw":…}`
    const estimate = size.estimate + ENVELOPE_PUNCTUATION + String(record.receivedAtUs).length + 2;
    // At most 6 bytes of JSON per character of text (\uXXXX): the bound Kafka's limit is checked against.
    if (!size.plain || estimate + size.text * 5 > spec.maxRecordBytes) {
      // Refused (record_too_large) exactly as the Kafka bus refuses it; else delivered as decoded.
      const [wire] = prepareRecords(spec, [record]);
      return { key: record.key, delivery: deliveryOf(wire!.value), bytes: wire!.bytes };
    }
    return { key: record.key, delivery: envelopeChecked(record), bytes: estimate };
  });
}

// The envelope's field names, quotes, colons and commas.
const ENVELOPE_PUNCTUATION = 82;

/** What decoding the record's wire form gives: the record, or why it is not one (with its bytes). */
function deliveryOf(wire: string): KeptDelivery {
  const decoded = decodeRecord(wire);
  return decoded.ok
    ? { ok: true, record: decoded.record }
    : { ok: false, reason: decoded.reason, bytes: Buffer.from(wire, 'utf8') };
}

/** The record itself when its envelope is one `decodeRecord` takes, checked without its payload. */
function envelopeChecked(record: ReceivedRecord): KeptDelivery {
  const envelope = decodeRecord(encodeRecord({ ...record, payload: null, raw: null }));
  if (envelope.ok && (record.raw === null || typeof record.raw === 'string')) return { ok: true, record };
  return deliveryOf(encodeRecord(record));
}

interface Size {
  /** The JSON size in bytes when no character needs escaping or more than one byte (ASCII). */
  estimate: number;
  /** Characters of text (strings and keys): each may take up to 6 bytes of JSON. */
  text: number;
  /** Plain JSON data: its JSON reads back as the same value. */
  plain: boolean;
}

function measure(value: unknown, size: Size): void {
  switch (typeof value) {
    case 'string':
      size.estimate += value.length + 2;
      size.text += value.length;
      return;
    case 'number':
      if (!Number.isFinite(value) || Object.is(value, -0)) size.plain = false;
      size.estimate += String(value).length;
      return;
    case 'boolean':
      size.estimate += value ? 4 : 5;
      return;
    case 'object': {
      if (value === null) {
        size.estimate += 4;
        return;
      }
      if (Array.isArray(value)) {
        size.estimate += 1 + Math.max(1, value.length);
        for (const item of value) measure(item, size);
        return;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        size.plain = false;
        return;
      }
      let fields = 0;
      for (const key in value) {
        fields += 1;
        size.estimate += key.length + 3;
        size.text += key.length;
        measure((value as Record<string, unknown>)[key], size);
      }
      size.estimate += 1 + Math.max(1, fields);
      return;
    }
    default:
      // undefined, a bigint, a function: JSON drops or converts it.
      size.plain = false;
  }
}
