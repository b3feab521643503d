import type { Json } from '../../bus/record.ts';
import { describeValue as describe } from '../../records/index.ts';

/**
 * Readers of payload fields for the mappers. A payload is parsed JSON whose bigints are decimal
 * strings; these readers check what a mapper relies on (presence, shape, times) and name the field
 * when something is wrong. Integer ranges and text are checked once more by the insert encoder,
 * which names the column and row (InsertValueError): both end as a dead letter, never a crash.
 */

export type Payload = { readonly [key: string]: Json | undefined };

/** Why a record could not be mapped; `code` becomes dead_letters.error_code. */
export type MappingErrorCode = 'schema_mismatch' | 'invalid_time' | 'unknown_kind' | 'value_out_of_range';

export class MappingError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
    readonly code: MappingErrorCode = 'schema_mismatch',
  ) {
    super(`${field}: ${reason}`);
    this.name = 'MappingError';
  }
}

export function isObject(value: Json | undefined): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The payload as an object, or a MappingError naming what it is instead. */
export function payloadObject(value: Json, what = 'payload'): Payload {
  if (!isObject(value)) throw new MappingError(what, `is ${describe(value)}, not an object`);
  return value;
}

/** A nested object, or undefined when absent or null. */
export function objectField(p: Payload, field: string): Payload | undefined {
  const value = p[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new MappingError(field, `is ${describe(value)}, not an object`);
  return value;
}

/** A nested array (empty when absent or null). */
export function arrayField(p: Payload, field: string): readonly Json[] {
  const value = p[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MappingError(field, `is ${describe(value)}, not an array`);
  return value;
}

/** A scalar as sent (text, number or boolean), or undefined when absent or null. */
export function scalar(p: Payload, field: string): string | number | boolean | undefined {
  const value = p[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') throw new MappingError(field, `is ${describe(value)}, not a single value`);
  return value;
}

export function requiredScalar(p: Payload, field: string): string | number | boolean {
  const value = scalar(p, field);
  if (value === undefined || value === '') throw new MappingError(field, 'is missing');
  return value;
}

/** Text, or `fallback` when absent; numbers are kept as their decimal text. */
export function text(p: Payload, field: string, fallback = ''): string {
  const value = scalar(p, field);
  return value === undefined ? fallback : String(value);
}

export function requiredText(p: Payload, field: string): string {
  return String(requiredScalar(p, field));
}

/** Any value as text: a scalar as is, an object or array as its JSON (for fields the interface leaves untyped). */
export function anyText(p: Payload, field: string): string {
  const value = p[field];
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** An integer as sent (decimal text or a JSON number); the encoder checks it fits the column. */
export function integer(p: Payload, field: string): string | number | undefined {
  const value = scalar(p, field);
  if (typeof value === 'boolean') throw new MappingError(field, `is ${value}, not an integer`);
  return value;
}

export function requiredInteger(p: Payload, field: string): string | number {
  const value = integer(p, field);
  if (value === undefined || value === '') throw new MappingError(field, 'is missing');
  return value;
}

/** One unit of a price (1.0) in micro-units. */
const PRICE_ONE_MICRO = 1_000_000;

/** The value of an integer as sent, when it is one (the encoder refuses the rest, naming the column). */
function wholeValue(value: string | number): number | null {
  const n = typeof value === 'number' ? value : /^-?\d{1,19}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) ? n : null;
}

/** `value`, a price in micro-units, when it lies strictly inside (0, 1): a trade, quote or level at any other price is
 * no price at all. */
export function checkedPrice<T extends string | number>(value: T, field: string): T {
  const n = wholeValue(value);
  if (n !== null && (n <= 0 || n >= PRICE_ONE_MICRO))
    throw new MappingError(field, `${describe(value)} is outside (0, 1)`, 'value_out_of_range');
  return value;
}

/** `value`, a size or amount in micro-units, when it is not negative. */
export function checkedSize<T extends string | number>(value: T, field: string): T {
  const n = wholeValue(value);
  if (n !== null && n < 0) throw new MappingError(field, `${describe(value)} is negative`, 'value_out_of_range');
  return value;
}

export function price(p: Payload, field: string): string | number | undefined {
  const value = integer(p, field);
  return value === undefined || value === '' ? value : checkedPrice(value, field);
}

export function requiredPrice(p: Payload, field: string): string | number {
  const value = price(p, field);
  if (value === undefined || value === '') throw new MappingError(field, 'is missing');
  return value;
}

/** A size or amount in micro-units that cannot be negative. */
export function size(p: Payload, field: string): string | number | undefined {
  const value = integer(p, field);
  return value === undefined || value === '' ? value : checkedSize(value, field);
}

/**
 * A decimal amount the venue writes in whole units (a reference price, a band's bound: a JSON
 * number or decimal text), as micro-units in decimal text, exactly: no float arithmetic. Undefined
 * when absent; a value finer than a micro-unit, or not a decimal, does not fit (its record's dead
 * letter names the field).
 */
export function decimalMicro(p: Payload, field: string): string | undefined {
  const value = scalar(p, field);
  if (value === undefined || value === '') return undefined;
  // A JSON number's shortest decimal text is the number the venue wrote (for up to 15 significant digits).
  const text = typeof value === 'number' ? plainDecimal(value) : String(value);
  const match = /^(-?)(\d+)(?:\.(\d{1,6})0*)?$/.exec(text.trim()) ?? /^(-?)()\.(\d{1,6})0*$/.exec(text.trim());
  if (!match) throw new MappingError(field, `${describe(value)} is not a decimal of at most 6 places`);
  const micro = BigInt(`${match[2] || '0'}${(match[3] ?? '').padEnd(6, '0')}`);
  return `${match[1] === '-' && micro !== 0n ? '-' : ''}${micro}`;
}

/** A number's decimal text without an exponent (1e-7 → 0.0000001). */
function plainDecimal(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A plain number (a score, a percentage: never money), or null when absent or not a number. */
export function numberField(p: Payload, field: string): number | null {
  const value = p[field];
  return typeof value === 'number' ? value : null;
}

export function flag(p: Payload, field: string): boolean | undefined {
  const value = scalar(p, field);
  if (value === undefined || typeof value === 'boolean') return value;
  throw new MappingError(field, `is ${describe(value)}, not a boolean`);
}

// ISO 8601 with a date and a time zone (the venue writes UTC with Z); a bare date is midnight UTC.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:$|[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$)/;

// DateTime64's range: ClickHouse clamps a time outside it without a word, so it is refused here.
const EARLIEST_MS = Date.UTC(1900, 0, 1);
const LATEST_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999);
const within = (ms: number): boolean => ms >= EARLIEST_MS && ms <= LATEST_MS;

/**
 * A time as epoch milliseconds (what the encoder writes exactly as `seconds.millis`): ISO text,
 * or a JSON number of epoch milliseconds. Parsing here, not in the engine, turns a bad time into
 * this record's dead letter instead of a failed insert of the whole batch.
 */
export function timeMs(value: Json | undefined, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && within(value)) return value;
  if (typeof value === 'string' && ISO_TIME.test(value)) {
    const millis = Date.parse(value);
    if (Number.isFinite(millis) && within(millis)) return millis;
  }
  throw new MappingError(field, `${describe(value)} is not a time (ISO 8601 or epoch milliseconds)`, 'invalid_time');
}

export function timeField(p: Payload, field: string): number | undefined {
  return timeMs(p[field], field);
}

export function requiredTime(p: Payload, field: string): number {
  const value = timeField(p, field);
  if (value === undefined) throw new MappingError(field, 'is missing', 'invalid_time');
  return value;
}

/**
 * A time as epoch microseconds, for DateTime64(6) columns: ISO text keeps up to six fraction
 * digits, a JSON number is epoch milliseconds, and a `…_us` field holds decimal microseconds.
 */
export function timeUs(p: Payload, field: string): bigint | undefined {
  const micros = p[`${field}_us`];
  if (typeof micros === 'string' && /^\d{1,19}$/.test(micros)) return BigInt(micros);
  const value = p[field];
  const millis = timeMs(value, field);
  if (millis === undefined) return undefined;
  if (typeof value !== 'string') return BigInt(millis) * 1000n;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  // Date.parse keeps milliseconds; the next three digits are the microseconds within them.
  return BigInt(millis) * 1000n + BigInt(fraction.slice(3, 6).padEnd(3, '0'));
}

/** The first of `fields` that is present, as a time. */
export function firstTime(p: Payload, fields: readonly string[]): number | undefined {
  for (const field of fields) {
    const value = timeField(p, field);
    if (value !== undefined) return value;
  }
  return undefined;
}
