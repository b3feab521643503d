/**
 * The venue's frame envelope, read tolerantly. The interface leaves the envelope "not shown"; the
 * venue we know sends `{type, seq, ts, data}` on the sockets (seq numbers frames per connection,
 * ts is the venue's ISO time) and `{type, seq, stream_id, …}` on the portfolio SSE. Fields we do
 * not know are allowed (the frame is flagged so its raw text is kept); a field we know with the
 * wrong type makes the frame unparseable, because trusting half of it could corrupt a book.
 */

import type { ScannedSnapshot } from './snapshot-scan.ts';

export type JsonObject = Record<string, unknown>;

export interface ParsedFrame {
  type: string;
  /** The venue's frame number on this connection, when the frame carries one. */
  seq: number | null;
  /** The venue's time, verbatim. */
  ts: string | null;
  /** `data` of a socket frame; the whole object for SSE events (which carry no `data`). */
  data: JsonObject;
  /** The envelope or its data has fields this reader does not know. */
  unknownFields: boolean;
  /** A snapshot book frame's level arrays, read by position (snapshot-scan.ts); `data` then has them empty. */
  scanned?: ScannedSnapshot;
}

export interface FrameProblem {
  problem: 'invalid_json' | 'not_an_object' | 'wrong_types';
  detail: string;
}

const ENVELOPE_FIELDS = new Set(['type', 'seq', 'ts', 'data']);

export function parseFrame(raw: string): ParsedFrame | FrameProblem {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { problem: 'invalid_json', detail: (err as Error).message };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'not_an_object', detail: 'a frame is one JSON object' };
  const o = value as JsonObject;
  const { type, seq, ts, data } = o;
  if (typeof type !== 'string') return { problem: 'wrong_types', detail: `type must be a string, got ${typeof type}` };
  // A number on the sockets; the portfolio stream writes it as a decimal string (§6.4).
  const number = typeof seq === 'string' && /^\d{1,15}$/.test(seq) ? Number(seq) : seq;
  if (number !== undefined && !(typeof number === 'number' && Number.isSafeInteger(number) && number >= 0)) {
    return { problem: 'wrong_types', detail: `seq must be a whole number, got ${JSON.stringify(seq)}` };
  }
  if (ts !== undefined && typeof ts !== 'string')
    return { problem: 'wrong_types', detail: `ts must be a string, got ${typeof ts}` };
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
    return { problem: 'wrong_types', detail: 'data must be an object' };
  }
  let unknownFields = false;
  for (const key in o) {
    if (!ENVELOPE_FIELDS.has(key)) {
      unknownFields = true;
      break;
    }
  }
  return {
    type,
    seq: (number as number | undefined) ?? null,
    ts: (ts as string | undefined) ?? null,
    data: (data as JsonObject | undefined) ?? o,
    unknownFields,
  };
}

export function isFrameProblem(parsed: ParsedFrame | FrameProblem): parsed is FrameProblem {
  return 'problem' in parsed;
}

/** True when `data` has a key outside `known`. */
export function hasUnknownKeys(data: JsonObject, known: ReadonlySet<string>): boolean {
  for (const key in data) if (!known.has(key)) return true;
  return false;
}

/** An ISO time as µs since the epoch, or null when it does not parse. */
export function isoToMicros(text: string | null | undefined): bigint | null {
  if (!text) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  // Date keeps milliseconds only; keep a written sub-millisecond part (".123456Z").
  const fraction = /\.(\d{4,6})/.exec(text)?.[1];
  const extra = fraction ? Number(fraction.slice(3).padEnd(3, '0')) : 0;
  return BigInt(ms) * 1000n + BigInt(extra);
}

/** µs since the epoch as ISO 8601 with six decimals (ClickHouse DateTime64(6) reads it as is). */
export function microsToIso(us: bigint): string {
  const ms = us / 1000n;
  const iso = new Date(Number(ms)).toISOString();
  const micros = (us % 1000n).toString().padStart(3, '0');
  return `${iso.slice(0, -1)}${micros}Z`;
}
