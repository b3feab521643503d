/**
 * Value encoders for ClickHouse's TabSeparated input format, compiled once per column type.
 * TabSeparated is what the loaders send (see bench/warehouse-insert.ts for the measurements):
 * it needs no quoting for numbers, the engine parses it in parallel, and a string only needs
 * escaping when it holds a backslash, tab or line break.
 *
 * Values are checked on the way in (integers exact and in range, times well-formed, no floats
 * where an integer belongs), so a bad value fails here with the column and row named instead of
 * failing the whole batch inside ClickHouse.
 */

export type CellValue = string | number | bigint | boolean | Date | null | undefined | readonly CellValue[];

/** Encodes one value as a TSV field (top level) or as an element inside an array literal (nested). */
export type ValueEncoder = (value: CellValue) => string;

export class InsertValueError extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
    readonly reason: string,
    readonly rowIndex: number,
  ) {
    super(`${table}: row ${rowIndex}, column ${column}: ${reason}`);
    this.name = 'InsertValueError';
  }
}

/** Thrown by an encoder; the caller adds the column and row. */
export class BadValue extends Error {}

const TSV_SPECIAL = /[\\\t\n\r]/;
const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const QUOTED_SPECIAL = /[\\\t\n\r']/;
const QUOTED_ESCAPES: Record<string, string> = { ...TSV_ESCAPES, "'": "\\'" };

export function escapeTsv(text: string): string {
  return TSV_SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c]!) : text;
}

function quote(text: string): string {
  return `'${QUOTED_SPECIAL.test(text) ? text.replace(/[\\\t\n\r']/g, (c) => QUOTED_ESCAPES[c]!) : text}'`;
}

type Context = 'field' | 'nested';

interface IntRange {
  min: bigint;
  max: bigint;
  /** Decimal text shorter than this is always in range, so the exact check can be skipped. */
  safeLength: number;
}

const INT_RANGES: Record<string, IntRange> = {};
for (const bits of [8, 16, 32, 64, 128, 256]) {
  const size = 1n << BigInt(bits);
  const signed = { min: -(size >> 1n), max: (size >> 1n) - 1n };
  const unsigned = { min: 0n, max: size - 1n };
  INT_RANGES[`Int${bits}`] = { ...signed, safeLength: signed.max.toString().length };
  INT_RANGES[`UInt${bits}`] = { ...unsigned, safeLength: unsigned.max.toString().length };
}

const INTEGER_TEXT = /^-?\d+$/;

function describe(value: CellValue): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Date) return 'a Date';
  if (Array.isArray(value)) return 'an array';
  return `${typeof value} ${String(value)}`;
}

function integerEncoder(type: string): ValueEncoder {
  const range = INT_RANGES[type]!;
  const unsigned = range.min === 0n;
  // Safe integers always fit a 64-bit type; smaller types are compared as numbers.
  const minNumber = Number(range.min);
  const maxNumber = Number(range.max);
  const inRange = (text: string, exact: () => bigint) => {
    if (unsigned && text.charCodeAt(0) === 45 /* - */) return false;
    const digits = text.charCodeAt(0) === 45 ? text.length - 1 : text.length;
    if (digits < range.safeLength) return true;
    const value = exact();
    return value >= range.min && value <= range.max;
  };
  return (value) => {
    if (typeof value === 'bigint') {
      const text = value.toString();
      if (inRange(text, () => value)) return text;
    } else if (typeof value === 'number') {
      // A double is exact only up to 2^53: money must arrive as bigint or decimal text.
      if (Number.isSafeInteger(value) && value >= minNumber && value <= maxNumber) return String(value);
    } else if (typeof value === 'string') {
      if (INTEGER_TEXT.test(value) && inRange(value, () => BigInt(value))) return value;
    }
    throw new BadValue(`${describe(value)} is not an exact ${type}`);
  };
}

function floatEncoder(): ValueEncoder {
  return (value) => {
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return String(value);
      return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
    }
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return value;
    throw new BadValue(`${describe(value)} is not a number`);
  };
}

function boolEncoder(): ValueEncoder {
  return (value) => {
    if (value === true || value === 1) return 'true';
    if (value === false || value === 0) return 'false';
    throw new BadValue(`${describe(value)} is not a boolean`);
  };
}

function stringEncoder(context: Context): ValueEncoder {
  const wrap = context === 'field' ? escapeTsv : quote;
  return (value) => {
    if (typeof value === 'string') return wrap(value);
    if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
      return wrap(String(value));
    if (value instanceof Date) return wrap(isoOf(value));
    throw new BadValue(`${describe(value)} is not text`);
  };
}

const UUID_TEXT = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

function uuidEncoder(context: Context): ValueEncoder {
  return (value) => {
    if (typeof value === 'string' && UUID_TEXT.test(value)) return context === 'field' ? value : `'${value}'`;
    throw new BadValue(`${describe(value)} is not a UUID`);
  };
}

// Date-time text as the venue sends it (ISO 8601) or as ClickHouse prints it; parsed by the
// engine with date_time_input_format='best_effort'.
const DATE_TIME_TEXT = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

function isoOf(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new BadValue('an invalid Date');
  return date.toISOString();
}

/** Epoch microseconds (bigint) as ISO 8601 with six fraction digits. */
export function isoFromEpochMicros(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const subMilli = Number(micros - millis * 1000n);
  return `${isoOf(new Date(Number(millis))).slice(0, 23)}${String(subMilli).padStart(3, '0')}Z`;
}

// Times from 2001-09-09 to 2286 are sent as Unix seconds with a fraction ("1714521600.123456"),
// which the engine reads exactly in either date_time_input_format and JS writes several times
// faster than ISO text; other times go as ISO text.
const TEN_DIGIT_SECONDS_FROM = 1e9;
const TEN_DIGIT_SECONDS_UNTIL = 1e10;

function epochText(units: number, perSecond: 1e3 | 1e6): string | undefined {
  const seconds = Math.floor(units / perSecond);
  if (seconds < TEN_DIGIT_SECONDS_FROM || seconds >= TEN_DIGIT_SECONDS_UNTIL) return undefined;
  const fraction = String(units - seconds * perSecond);
  const width = perSecond === 1e3 ? 3 : 6;
  return `${seconds}.${fraction.length === width ? fraction : fraction.padStart(width, '0')}`;
}

function fromMillis(millis: number): string {
  return epochText(millis, 1e3) ?? isoOf(new Date(millis));
}

function fromMicros(micros: bigint): string {
  const asNumber = Number(micros);
  // Exact as a double for any date within ±285 years of 1970; bigint arithmetic is the slow path.
  return (Number.isSafeInteger(asNumber) ? epochText(asNumber, 1e6) : undefined) ?? isoFromEpochMicros(micros);
}

function dateTimeEncoder(context: Context, dateOnly: boolean): ValueEncoder {
  const wrap = context === 'field' ? (text: string) => text : (text: string) => `'${text}'`;
  const day = (iso: string) => iso.slice(0, 10);
  return (value) => {
    if (typeof value === 'string') {
      if (DATE_TIME_TEXT.test(value)) return wrap(value);
    } else if (value instanceof Date) {
      const millis = value.getTime();
      if (Number.isFinite(millis)) return wrap(dateOnly ? day(isoOf(value)) : fromMillis(millis));
    } else if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) return wrap(dateOnly ? day(isoOf(new Date(value))) : fromMillis(value)); // epoch milliseconds
    } else if (typeof value === 'bigint') {
      return wrap(dateOnly ? day(isoFromEpochMicros(value)) : fromMicros(value)); // epoch microseconds
    }
    throw new BadValue(`${describe(value)} is not a date-time (ISO text, Date, epoch ms number or epoch µs bigint)`);
  };
}

function arrayEncoder(element: ValueEncoder): ValueEncoder {
  return (value) => {
    if (!Array.isArray(value)) throw new BadValue(`${describe(value)} is not an array`);
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += element(value[i] as CellValue);
    }
    return `${out}]`;
  };
}

function nullableEncoder(inner: ValueEncoder, context: Context): ValueEncoder {
  const nullText = context === 'field' ? '\\N' : 'NULL';
  return (value) => (value === null || value === undefined ? nullText : inner(value));
}

/** Splits `Name(args)` into name and the raw argument text. */
function parseType(type: string): { name: string; args: string } {
  const open = type.indexOf('(');
  if (open === -1) return { name: type.trim(), args: '' };
  return { name: type.slice(0, open).trim(), args: type.slice(open + 1, type.lastIndexOf(')')).trim() };
}

export function compileEncoder(type: string, context: Context = 'field'): ValueEncoder {
  const { name, args } = parseType(type);
  switch (name) {
    case 'LowCardinality':
      return compileEncoder(args, context);
    case 'Nullable':
      return nullableEncoder(compileEncoder(args, context), context);
    case 'Array':
      return arrayEncoder(compileEncoder(args, 'nested'));
    case 'String':
    case 'FixedString':
      return stringEncoder(context);
    case 'UUID':
      return uuidEncoder(context);
    case 'Bool':
      return boolEncoder();
    case 'Float32':
    case 'Float64':
      return floatEncoder();
    case 'Date':
    case 'Date32':
      return dateTimeEncoder(context, true);
    case 'DateTime':
    case 'DateTime64':
      return dateTimeEncoder(context, false);
    default:
      if (name in INT_RANGES) return integerEncoder(name);
      throw new Error(`column type ${type} has no TabSeparated encoder`);
  }
}
