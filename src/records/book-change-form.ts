import { decimalAt } from '../util/decimal.ts';
import { keyOf } from './payloads.ts';
import { PayloadError, type Json } from './json.ts';
import type { BookChangePayload, BookUpdateEntry, LevelChange } from './book-change.ts';
import { sourceOf, type BusRecord, type Origin, type ReceivedRecord } from './record.ts';

/**
 * The wire form of `book_change` records: one record holds one or more consecutive book updates of
 * one key (a market's condition, or the token when the condition is unknown), each update the
 * levels one frame (or REST re-seed) changed on one token's ladder. The form is lean — the envelope
 * says the key, the first update's times and frame; each update says only how it differs:
 *
 *   payload = {"t": [[token_id, first_sequence], …],
 *              "u": [[token, d_received_us, venue_time, d_frame, venue_sequence, update, bids, asks(, raw)], …]}
 *
 * - `t`: the record's tokens, each with the capture sequence of its first update here (decimal
 *   string); each further update of that token is the next sequence (they are consecutive).
 * - `token`: index into `t`; `d_received_us`, `d_frame`: our receive time (µs) and frame number
 *   minus the previous update's (the envelope's for the first); `venue_time`: milliseconds after
 *   the previous such time (the envelope's `venue_time` for the first) when it and that time are
 *   ISO times with milliseconds and `Z` (the venue's form), else the venue's text verbatim, or null;
 *   `venue_sequence`: the venue's book sequence or null; `update`: `s` (snapshot diffed), `d`
 *   (delta applied), `r` (REST re-seed diffed).
 * - `bids`, `asks`: flat `[price_micro, size_micro, price_micro, size_micro, …]`, the level's new
 *   size (0 removes it); prices are JSON numbers (micro-units of a probability, below 10^6),
 *   sizes JSON numbers up to 15 digits and decimal strings beyond (exact either way).
 * - `raw`: the frame's text, present only for updates whose frame is kept (deltas, frames with
 *   fields capture does not read).
 * - `q` (optional, one entry per update): the frame envelope's `seq` of each update, null for a
 *   REST re-seed or a frame without one; absent when no update has one (records made before it).
 *   The connection's number is the envelope's `source.conn`: a record's updates share a connection.
 */

export type UpdateKind = 'snapshot' | 'delta' | 'reseed';

export type { BookChangePayload, BookUpdateEntry, LevelChange };

/** One update as capture makes it. */
export interface BookUpdate {
  tokenId: string;
  /** '' when not known. */
  conditionId: string;
  sequence: bigint;
  venueSequence: number | null;
  update: UpdateKind;
  venueTime: string | null;
  origin: Origin;
  changes: readonly LevelChange[];
  raw: string | null;
}

/** One update as read back from a record. */
export interface ReadUpdate {
  tokenId: string;
  conditionId: string;
  sequence: bigint;
  venueSequence: number | null;
  update: UpdateKind;
  /** The venue's time in ms since the epoch when written as an offset (then `venueTime` is null). */
  venueMs: number | null;
  /** The venue's time as its text, when not written as an offset. */
  venueTime: string | null;
  receivedAtUs: bigint;
  frame: number;
  /** The frame envelope's `seq` (from `q`), or null. */
  frameSeq: number | null;
  /** Flat `[price, size, …]`: prices numbers, sizes numbers or decimal strings. */
  bids: ReadonlyArray<number | string>;
  asks: ReadonlyArray<number | string>;
  raw: string | null;
}

const CODES: Readonly<Record<UpdateKind, 's' | 'd' | 'r'>> = { snapshot: 's', delta: 'd', reseed: 'r' };
const KINDS: Readonly<Record<string, UpdateKind>> = { s: 'snapshot', d: 'delta', r: 'reseed' };

/** The key of a token's book records: its condition, or the token when the condition is unknown. */
// The rule of book_change's key function (kinds/book-change.ts), for one update before its record exists.
export function bookKey(update: { tokenId: string; conditionId: string }): string {
  return update.conditionId || update.tokenId;
}

/** One record of consecutive updates sharing a key and a connection, in the order made. */
export function bookChangeRecord(updates: readonly BookUpdate[]): BusRecord<'book_change'> {
  const first = updates[0]!;
  let lastMs = canonicalMs(first.venueTime);
  let lastUs = first.origin.receivedAtUs;
  let lastFrame = first.origin.frameNo;
  const tokens: BookChangePayload['t'] = [];
  const index = new Map<string, number>();
  const entries: BookUpdateEntry[] = [];
  const frameSeqs: Array<number | null> = [];
  for (const u of updates) {
    frameSeqs.push(u.update === 'reseed' ? null : (u.origin.frameSeq ?? null));
    let ti = index.get(u.tokenId);
    if (ti === undefined) {
      ti = tokens.length;
      index.set(u.tokenId, ti);
      tokens.push([u.tokenId, u.sequence.toString()]);
    }
    const ms = lastMs === null ? null : canonicalMs(u.venueTime);
    const bids: Array<number | string> = [];
    const asks: Array<number | string> = [];
    for (const c of u.changes) {
      // Sizes are canonical decimal strings: up to 15 digits they are exact as JSON numbers.
      (c.side === 'bid' ? bids : asks).push(c.priceMicro, c.sizeMicro.length <= 15 ? Number(c.sizeMicro) : c.sizeMicro);
    }
    const entry: BookUpdateEntry = [
      ti,
      Number(u.origin.receivedAtUs - lastUs),
      ms === null ? u.venueTime : ms - lastMs!,
      u.origin.frameNo - lastFrame,
      u.venueSequence,
      CODES[u.update],
      bids,
      asks,
    ];
    if (u.raw !== null) entry.push(u.raw);
    entries.push(entry);
    if (ms !== null) lastMs = ms;
    lastUs = u.origin.receivedAtUs;
    lastFrame = u.origin.frameNo;
  }
  const payload: BookChangePayload = { t: tokens, u: entries };
  if (frameSeqs.some((q) => q !== null)) payload.q = frameSeqs;
  return {
    kind: 'book_change',
    key: keyOf('book_change', payload, { conditionId: first.conditionId }),
    venueTime: first.venueTime,
    receivedAtUs: first.origin.receivedAtUs,
    source: sourceOf(first.origin),
    payload,
    raw: null,
  };
}

// Consecutive updates mostly share the venue's time: the last answer is kept.
let cachedText = '';
let cachedMs: number | null = null;

/** Milliseconds of an ISO time written exactly as `Date#toISOString` writes it; null otherwise. */
export function canonicalMs(text: string | null): number | null {
  if (text === null || text.length !== 24 || text.charCodeAt(23) !== 90 /* Z */) return null;
  if (text === cachedText) return cachedMs;
  cachedText = text;
  cachedMs = isoMs(text);
  return cachedMs;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ` read by position (Date.parse and a round trip through toISOString
 * cost microseconds per update, most of a book record's encoding): the same answer for every text,
 * null unless toISOString would write exactly that text. Years before 1000 take the slow way.
 */
function isoMs(text: string): number | null {
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46
  )
    return null;
  const year = decimalAt(text, 0, 4);
  const month = decimalAt(text, 5, 2);
  const day = decimalAt(text, 8, 2);
  const hour = decimalAt(text, 11, 2);
  const minute = decimalAt(text, 14, 2);
  const second = decimalAt(text, 17, 2);
  const milli = decimalAt(text, 20, 3);
  if (year < 1000) {
    if (year < 0) return null;
    const ms = Date.parse(text);
    return Number.isFinite(ms) && new Date(ms).toISOString() === text ? ms : null;
  }
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    milli < 0
  )
    return null;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0)) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** The updates of a `book_change` record of this form, in order; throws PayloadError (naming the part) when it does not
 * fit. */
export function readBookUpdates(
  record: Pick<ReceivedRecord, 'key' | 'venueTime' | 'receivedAtUs' | 'source'> & { payload: unknown },
): ReadUpdate[] {
  const p = record.payload as { t?: Json; u?: Json; q?: Json };
  if (!Array.isArray(p.t)) throw new PayloadError('.t', 'is not a list of [token_id, sequence]');
  if (!Array.isArray(p.u) || p.u.length === 0) throw new PayloadError('.u', 'is not a non-empty list of updates');
  const frameSeqs = readFrameSeqs(p.q, p.u.length);
  const tokens = p.t.map((t, i) => readToken(t, i));
  let lastMs = canonicalMs(record.venueTime);
  let lastUs = record.receivedAtUs;
  let lastFrame = record.source.type === 'stream' ? record.source.frame : 0;
  const condition = tokens.some((t) => t.tokenId === record.key) ? '' : record.key;
  const out: ReadUpdate[] = [];
  for (let i = 0; i < p.u.length; i++) {
    const e = p.u[i];
    const path = `.u[${i}]`;
    if (!Array.isArray(e) || e.length < 8)
      throw new PayloadError(
        path,
        'is not [token, d_received_us, venue_time, d_frame, venue_sequence, update, bids, asks]',
      );
    const [ti, dReceived, venue, dFrame, venueSequence, code, bids, asks, raw] = e;
    const token = typeof ti === 'number' ? tokens[ti] : undefined;
    if (!token) throw new PayloadError(`${path}[0]`, `token ${JSON.stringify(ti)} is not in t`);
    if (!Number.isSafeInteger(dReceived) || !Number.isSafeInteger(dFrame))
      throw new PayloadError(path, 'd_received_us and d_frame must be whole numbers');
    if (venueSequence !== null && !Number.isSafeInteger(venueSequence))
      throw new PayloadError(`${path}[4]`, 'venue_sequence must be a whole number or null');
    const update = typeof code === 'string' ? KINDS[code] : undefined;
    if (!update) throw new PayloadError(`${path}[5]`, `update ${JSON.stringify(code)} is not s, d or r`);
    if (
      venue !== null &&
      typeof venue !== 'string' &&
      !(typeof venue === 'number' && Number.isSafeInteger(venue) && lastMs !== null)
    ) {
      throw new PayloadError(
        `${path}[2]`,
        'venue_time must be text, null, or whole milliseconds after an ISO venue_time',
      );
    }
    if (raw !== undefined && typeof raw !== 'string') throw new PayloadError(`${path}[8]`, 'raw must be text');
    if (typeof venue === 'number') lastMs! += venue;
    lastUs += BigInt(dReceived as number);
    lastFrame += dFrame as number;
    out.push({
      tokenId: token.tokenId,
      conditionId: condition,
      sequence: token.next++,
      venueSequence: venueSequence as number | null,
      update,
      venueMs: typeof venue === 'number' ? lastMs : null,
      venueTime: typeof venue === 'string' ? venue : null,
      receivedAtUs: lastUs,
      frame: lastFrame,
      frameSeq: frameSeqs?.[i] ?? null,
      bids: levels(bids, `${path}[6]`),
      asks: levels(asks, `${path}[7]`),
      raw: raw ?? null,
    });
  }
  return out;
}

/** `q`, one frame `seq` (or null) per update, when present. */
function readFrameSeqs(q: Json | undefined, updates: number): ReadonlyArray<number | null> | null {
  if (q === undefined) return null;
  if (!Array.isArray(q) || q.length !== updates)
    throw new PayloadError('.q', `is not a list of ${updates} frame seqs (one per update)`);
  q.forEach((v, i) => {
    if (v !== null && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0))
      throw new PayloadError(`.q[${i}]`, 'a frame seq is a whole number ≥ 0 or null');
  });
  return q as Array<number | null>;
}

function readToken(t: Json, i: number): { tokenId: string; next: bigint } {
  if (
    !Array.isArray(t) ||
    typeof t[0] !== 'string' ||
    t[0] === '' ||
    typeof t[1] !== 'string' ||
    !/^\d{1,20}$/.test(t[1])
  ) {
    throw new PayloadError(`.t[${i}]`, 'is not [token_id, sequence as a decimal string]');
  }
  return { tokenId: t[0], next: BigInt(t[1]) };
}

function levels(value: Json | undefined, path: string): Array<number | string> {
  if (!Array.isArray(value) || value.length % 2 !== 0)
    throw new PayloadError(path, 'is not a flat list of price, size pairs');
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    const ok =
      typeof v === 'number'
        ? Number.isSafeInteger(v) && v >= 0
        : i % 2 === 1 && typeof v === 'string' && /^\d{1,19}$/.test(v);
    if (!ok) throw new PayloadError(`${path}[${i}]`, `${JSON.stringify(v)} is not a whole number of micro-units`);
  }
  return value as Array<number | string>;
}
