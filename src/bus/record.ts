/**
 * The record envelope: what every producer (capture, sync jobs) publishes on the bus and every
 * loader reads back, and its wire form.
 *
 * Wire form: one UTF-8 JSON object per message, field names in snake_case so that any JSON
 * reader (kcat, ClickHouse's JSONEachRow) sees the same thing we do:
 *
 *   {"v":1,"kind":"trade","key":"0xc0…","venue_time":"2025-01-01T00:00:00.123Z",
 *    "received_at_us":"1735689600123456","source":{"type":"stream","connection":"market-1","frame":42},
 *    "payload":{…},"raw":"{…the frame as received…}"}
 *
 * `received_at_us` travels as a decimal string (it does not fit a JSON number exactly), and so does
 * every bigint of the payload. Decoding never throws: it reports why bytes are not a record, so the
 * loader can dead-letter them and go on.
 */

import { type Json, isRecordKind, type ReceivedRecord, type RecordSource } from '../records/index.ts';

// The record contract lives in src/records; the envelope's names are also the bus's.
export { PayloadError, toJsonPayload, type Json } from '../records/index.ts';
export { isRecordKind, RECORD_KINDS, type RecordKind } from '../records/index.ts';
export type { BusRecord, ReceivedRecord, RecordSource } from '../records/index.ts';

export const ENVELOPE_VERSION = 1;

// ---- encoding ------------------------------------------------------------------------------

/** The record as JSON text (for Kafka it is sent as UTF-8 bytes). */
export function encodeRecord(record: ReceivedRecord): string {
  // Same key order for every record: V8 stringifies objects of one shape fastest.
  const wire = {
    v: ENVELOPE_VERSION,
    kind: record.kind,
    key: record.key,
    venue_time: record.venueTime,
    received_at_us: record.receivedAtUs.toString(10),
    source: record.source,
    payload: record.payload,
    raw: record.raw,
  };
  try {
    return JSON.stringify(wire);
  } catch (_) {
    // A bigint slipped into the payload past the type (a cast): send it exactly, as a decimal
    // string. The replacer costs time, so it is only the fallback.
    return JSON.stringify(wire, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString(10) : value));
  }
}

// ---- decoding ------------------------------------------------------------------------------

export type DecodeResult = { ok: true; record: ReceivedRecord } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const DECIMAL_DIGITS = /^[0-9]{1,19}$/;
const INT64_MAX = 2n ** 63n - 1n;

/** Reads a record from its wire form; never throws. */
export function decodeRecord(input: string | Uint8Array): DecodeResult {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = utf8.decode(input);
    } catch (_) {
      return fail('not valid UTF-8');
    }
  }
  let wire: unknown;
  try {
    wire = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  return fromWire(wire);
}

function fromWire(wire: unknown): DecodeResult {
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) return fail('not a JSON object');
  const w = wire as Record<string, unknown>;
  if (w.v !== ENVELOPE_VERSION) return fail(`envelope version ${describe(w.v)} is not ${ENVELOPE_VERSION}`);
  if (typeof w.kind !== 'string' || !isRecordKind(w.kind)) return fail(`unknown record kind ${describe(w.kind)}`);
  if (typeof w.key !== 'string' || w.key === '') return fail(`key must be a non-empty string, got ${describe(w.key)}`);
  if (w.venue_time !== null && typeof w.venue_time !== 'string') {
    return fail(`venue_time must be a string or null, got ${describe(w.venue_time)}`);
  }
  const receivedAtUs = readMicros(w.received_at_us);
  if (receivedAtUs === undefined) {
    return fail(`received_at_us must be a decimal string within Int64, got ${describe(w.received_at_us)}`);
  }
  const source = readSource(w.source);
  if (typeof source === 'string') return fail(source);
  if (!('payload' in w)) return fail('payload is missing');
  if (w.raw !== null && typeof w.raw !== 'string') return fail(`raw must be a string or null, got ${describe(w.raw)}`);
  return {
    ok: true,
    // The payload is as its producer wrote it (typed there), or as an older version or another
    // tool did: the loaders read it tolerantly (src/load/mapping), which is the check.
    record: {
      kind: w.kind,
      key: w.key,
      venueTime: w.venue_time,
      receivedAtUs,
      source,
      payload: w.payload as Json,
      raw: w.raw,
    },
  };
}

function readMicros(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !DECIMAL_DIGITS.test(value)) return undefined;
  const micros = BigInt(value);
  return micros <= INT64_MAX ? micros : undefined;
}

/** The source, or why it is not one. */
function readSource(value: unknown): RecordSource | string {
  if (typeof value !== 'object' || value === null) return `source must be an object, got ${describe(value)}`;
  const s = value as Record<string, unknown>;
  if (s.type === 'stream') {
    if (typeof s.connection !== 'string' || !isCount(s.frame))
      return 'a stream source needs a connection (string) and a frame (integer ≥ 0)';
    if ((s.conn !== undefined && !isCount(s.conn)) || (s.seq !== undefined && !isCount(s.seq)))
      return "a stream source's conn and seq, when given, are integers ≥ 0";
    const source: RecordSource = { type: 'stream', connection: s.connection, frame: s.frame };
    if (s.conn !== undefined) source.conn = s.conn;
    if (s.seq !== undefined) source.seq = s.seq;
    return source;
  }
  if (s.type === 'sync') {
    if (typeof s.job !== 'string' || !isCount(s.page))
      return 'a sync source needs a job (string) and a page (integer ≥ 0)';
    return { type: 'sync', job: s.job, page: s.page };
  }
  return `source type ${describe(s.type)} is neither "stream" nor "sync"`;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function fail(reason: string): DecodeResult {
  return { ok: false, reason };
}

/** A short, safe rendering of an offending value for an error message. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? typeof value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
