/**
 * ClickHouse's Native format (one block, column after column), written straight into one Buffer:
 * the engine reads it without parsing any text (chDB: from a file on tmpfs, see insert-rows.ts),
 * which is what the TabSeparated path spends most of its engine time on.
 *
 * The TabSeparated encoder stays the reference: this one writes only values whose stored result
 * is known to be the same bit for bit, and answers `undefined` for anything else (a time given as
 * text, an integer out of range, a missing value in a column without DEFAULT, a type it does not
 * write), so the caller sends the batch as TabSeparated — which then stores it, or names the bad
 * value. Decisions therefore stay the TabSeparated encoder's, and so do its error messages.
 *
 * A value missing from a DEFAULT column is sent as NULL in a Nullable column of the file; the
 * insert (INSERT … SELECT, `insert_null_as_default = 1`) stores the column's DEFAULT expression,
 * as `\N` does in TabSeparated with `input_format_null_as_default = 1`.
 */
import type { ColumnSpec, InsertRow } from './row-encoder.ts';
import type { CellValue } from './tsv-encoders.ts';

export interface NativeEncoder {
  readonly columns: readonly string[];
  /** The rows as one Native block, or undefined when only TabSeparated can store them exactly. */
  encode(rows: readonly InsertRow[]): Buffer | undefined;
}

/** A growable output buffer. */
class Out {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  ensure(bytes: number): void {
    if (this.buf.length - this.pos >= bytes) return;
    const larger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(larger, 0, 0, this.pos);
    this.buf = larger;
  }
  varUInt(value: number): void {
    this.ensure(10);
    while (value >= 0x80) {
      this.buf[this.pos++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buf[this.pos++] = value;
  }
  /** Writes again the bytes already written at [start, end) (a repeated value, length and text). */
  repeat(start: number, end: number): void {
    const length = end - start;
    this.ensure(length);
    const buf = this.buf;
    // A short copy by hand: a native call costs more than the bytes.
    if (length <= 32) for (let k = 0; k < length; k++) buf[this.pos + k] = buf[start + k]!;
    else buf.copyWithin(this.pos, start, end);
    this.pos += length;
  }
  /** A string as Native stores it: its UTF-8 length as a varint, then the bytes. */
  text(value: string): void {
    if (value.length < 43) {
      // At most 126 bytes of UTF-8: the length fits the one varint byte reserved before them.
      this.ensure(value.length * 3 + 1);
      const length = this.buf.write(value, this.pos + 1);
      this.buf[this.pos] = length;
      this.pos += length + 1;
      return;
    }
    const length = Buffer.byteLength(value);
    this.varUInt(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos);
  }
}

/** Stands for "the type's zero" in a Nullable column's data under a NULL. */
const ZERO = Symbol('zero');
type Value = CellValue | typeof ZERO;

/** Writes the values of one column; false when one is not exactly storable. */
interface Codec {
  /** The column's type in the block header (LowCardinality left out: the insert casts). */
  header: string;
  write(out: Out, values: readonly Value[]): boolean;
}

const TWO_32 = 4294967296;
const CANONICAL_INTEGER = /^(0|-?[1-9]\d*)$/;

interface IntType {
  bytes: 1 | 2 | 4 | 8;
  signed: boolean;
  min: bigint;
  max: bigint;
}

const INT_TYPES: Record<string, IntType> = {};
for (const bytes of [1, 2, 4, 8] as const) {
  const size = 1n << BigInt(bytes * 8);
  INT_TYPES[`Int${bytes * 8}`] = { bytes, signed: true, min: -(size >> 1n), max: (size >> 1n) - 1n };
  INT_TYPES[`UInt${bytes * 8}`] = { bytes, signed: false, min: 0n, max: size - 1n };
}

const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** The exact integer a value stands for (as TabSeparated would send it): a number when it is safe. */
function integerOf(value: Value): number | bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') return value <= SAFE_MAX && value >= -SAFE_MAX ? Number(value) : value;
  if (typeof value !== 'string') return undefined;
  // Canonical decimal text only: the engine's text parser refuses some other forms ("007").
  if (value.length > 15) return CANONICAL_INTEGER.test(value) ? BigInt(value) : undefined;
  // Up to 15 characters: read the digits here, no regular expression, no BigInt.
  const negative = value.charCodeAt(0) === 45; /* - */
  let result = 0;
  let i = negative ? 1 : 0;
  if (i === value.length || (value.charCodeAt(i) === 48 /* 0 */ && (negative || value.length > 1))) return undefined;
  for (; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    result = result * 10 + digit;
  }
  return negative ? -result : result;
}

/** Little-endian bytes of a 32-bit value (the low 32 bits of any integer-valued number). */
function put32(buf: Buffer, pos: number, value: number): void {
  buf[pos] = value;
  buf[pos + 1] = value >>> 8;
  buf[pos + 2] = value >>> 16;
  buf[pos + 3] = value >>> 24;
}

/** A safe integer as a 64-bit two's complement, little-endian, in two 32-bit halves (no BigInt). */
function put64(buf: Buffer, pos: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  put32(buf, pos, value - high * TWO_32);
  put32(buf, pos + 4, high);
}

function integerCodec(name: string): Codec {
  const type = INT_TYPES[name]!;
  const minNumber = Number(type.min);
  const maxNumber = Number(type.max);
  return {
    header: name,
    write(out, values) {
      const count = values.length;
      out.ensure(count * type.bytes);
      const buf = out.buf;
      let pos = out.pos;
      for (let i = 0; i < count; i++) {
        const raw = values[i];
        let value = raw === ZERO ? 0 : integerOf(raw);
        if (value === undefined || (!type.signed && typeof raw === 'string' && raw.charCodeAt(0) === 45) /* - */)
          return false;
        if (typeof value === 'bigint') {
          if (value < type.min || value > type.max) return false;
          if (type.bytes === 8) {
            if (type.signed) buf.writeBigInt64LE(value, pos);
            else buf.writeBigUInt64LE(value, pos);
            pos += 8;
            continue;
          }
          value = Number(value);
        } else if (value < minNumber || value > maxNumber) {
          return false;
        }
        switch (type.bytes) {
          case 1:
            buf[pos] = value & 0xff;
            break;
          case 2:
            buf[pos] = value;
            buf[pos + 1] = value >>> 8;
            break;
          case 4:
            put32(buf, pos, value);
            break;
          case 8:
            put64(buf, pos, value);
            break;
        }
        pos += type.bytes;
      }
      out.pos = pos;
      return true;
    },
  };
}

function float64Codec(): Codec {
  return {
    header: 'Float64',
    write(out, values) {
      const count = values.length;
      out.ensure(count * 8);
      for (let i = 0; i < count; i++) {
        const value = values[i];
        // TabSeparated sends String(number) (the shortest text that reads back as the same
        // double) and a bigint's digits (read as the nearest double, as Number() does); text
        // stays with TabSeparated, whose parser decides what it means.
        const number =
          value === ZERO
            ? 0
            : typeof value === 'number'
              ? value
              : typeof value === 'bigint'
                ? Number(value)
                : undefined;
        if (number === undefined) return false;
        out.buf.writeDoubleLE(number === 0 ? 0 : number, out.pos); // String(-0) is "0"
        out.pos += 8;
      }
      return true;
    },
  };
}

function boolCodec(): Codec {
  return {
    header: 'Bool',
    write(out, values) {
      const count = values.length;
      out.ensure(count);
      for (let i = 0; i < count; i++) {
        const value = values[i];
        if (value === true || value === 1) out.buf[out.pos++] = 1;
        else if (value === false || value === 0 || value === ZERO) out.buf[out.pos++] = 0;
        else return false;
      }
      return true;
    },
  };
}

// Distinct strings a column remembers per block: enough for a batch's tokens, sides and topics.
const REMEMBERED_STRINGS = 1024;

function stringCodec(): Codec {
  return {
    header: 'String',
    write(out, values) {
      // A batch repeats most strings (its tokens, sides, topic): a repeat copies the bytes written
      // the first time (length and text), with no UTF-8 encoding.
      const seen = new Map<string, { start: number; end: number }>();
      let previous: Value | undefined;
      let previousStart = 0;
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        // Neighbouring rows mostly hold the very same string (one book update's levels): copy its
        // bytes without a lookup.
        if (value === previous && typeof value === 'string') {
          const start = out.pos;
          out.repeat(previousStart, start);
          previousStart = start;
          continue;
        }
        previous = value;
        previousStart = out.pos;
        let text: string;
        if (typeof value === 'string') text = value;
        else if (value === ZERO) text = '';
        else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
          text = String(value);
        else if (value instanceof Date && Number.isFinite(value.getTime())) text = value.toISOString();
        else return false;
        const span = seen.get(text);
        if (span === undefined) {
          const start = out.pos;
          out.text(text);
          if (seen.size < REMEMBERED_STRINGS) seen.set(text, { start, end: out.pos });
        } else {
          out.repeat(span.start, span.end);
        }
      }
      return true;
    },
  };
}

/** Seconds TabSeparated sends as Unix-epoch text (other times go as ISO text: left to it). */
const EPOCH_TEXT_FROM = 1e9;
const EPOCH_TEXT_UNTIL = 1e10;

function dateTime64Codec(type: string, scale: number): Codec {
  // Ticks from milliseconds and microseconds; a division is exact whenever the result is whole.
  const fromMillis = scale >= 3 ? (ms: number) => ms * 10 ** (scale - 3) : (ms: number) => ms / 10 ** (3 - scale);
  const fromMicros = scale >= 6 ? (us: number) => us * 10 ** (scale - 6) : (us: number) => us / 10 ** (6 - scale);
  return {
    header: type,
    write(out, values) {
      const count = values.length;
      out.ensure(count * 8);
      for (let i = 0; i < count; i++) {
        const value = values[i];
        let ticks: number | undefined;
        let seconds: number;
        if (value === ZERO) {
          ticks = 0;
          seconds = EPOCH_TEXT_FROM;
        } else if (typeof value === 'number' || value instanceof Date) {
          const millis = typeof value === 'number' ? value : value.getTime();
          if (!Number.isSafeInteger(millis)) return false;
          seconds = Math.floor(millis / 1000);
          ticks = fromMillis(millis);
        } else if (typeof value === 'bigint') {
          const micros = Number(value);
          if (!Number.isSafeInteger(micros)) return false;
          seconds = Math.floor(micros / 1e6);
          ticks = fromMicros(micros);
        } else {
          return false;
        }
        // Only whole ticks in a safe range: a finer time than the column keeps is TabSeparated's to round.
        if (seconds < EPOCH_TEXT_FROM || seconds >= EPOCH_TEXT_UNTIL || !Number.isSafeInteger(ticks)) return false;
        put64(out.buf, out.pos, ticks);
        out.pos += 8;
      }
      return true;
    },
  };
}

const DAY_MS = 86_400_000;

function dateCodec(): Codec {
  return {
    header: 'Date',
    write(out, values) {
      const count = values.length;
      out.ensure(count * 2);
      for (let i = 0; i < count; i++) {
        const value = values[i];
        let millis: number;
        if (value === ZERO) millis = 0;
        else if (typeof value === 'number') millis = value;
        else if (value instanceof Date) millis = value.getTime();
        else return false;
        const day = Math.floor(millis / DAY_MS);
        if (!Number.isSafeInteger(millis) || day < 0 || day > 0xffff) return false;
        out.buf.writeUInt16LE(day, out.pos);
        out.pos += 2;
      }
      return true;
    },
  };
}

/** A null map (1 = NULL), then the inner column with the type's zero under each NULL. */
function nullableCodec(inner: Codec): Codec {
  return {
    header: `Nullable(${inner.header})`,
    write(out, values) {
      const count = values.length;
      out.ensure(count);
      for (let i = 0; i < count; i++) {
        const value = values[i];
        out.buf[out.pos++] = value === null || value === undefined ? 1 : 0;
      }
      return inner.write(
        out,
        values.map((value) => (value === null || value === undefined ? ZERO : value)),
      );
    },
  };
}

/** Cumulative end offsets (UInt64), then every element of every row as one column. */
function arrayCodec(inner: Codec): Codec {
  return {
    header: `Array(${inner.header})`,
    write(out, values) {
      const count = values.length;
      out.ensure(count * 8);
      const elements: Value[] = [];
      for (let i = 0; i < count; i++) {
        const value = values[i];
        if (value !== ZERO) {
          if (!Array.isArray(value)) return false;
          for (const element of value as readonly CellValue[]) elements.push(element);
        }
        put64(out.buf, out.pos, elements.length);
        out.pos += 8;
      }
      // A hole in an array of a non-Nullable type is not a value: TabSeparated's to refuse.
      return inner.write(out, elements);
    },
  };
}

function parseType(type: string): { name: string; args: string } {
  const open = type.indexOf('(');
  if (open === -1) return { name: type.trim(), args: '' };
  return { name: type.slice(0, open).trim(), args: type.slice(open + 1, type.lastIndexOf(')')).trim() };
}

/** The codec of a column type, or undefined when only TabSeparated writes it. */
export function nativeCodec(type: string): Codec | undefined {
  const { name, args } = parseType(type);
  switch (name) {
    case 'LowCardinality':
      return nativeCodec(args);
    case 'Nullable': {
      const inner = nativeCodec(args);
      return inner && nullableCodec(inner);
    }
    case 'Array': {
      const inner = nativeCodec(args);
      return inner && arrayCodec(inner);
    }
    case 'String':
      return stringCodec();
    case 'Bool':
      return boolCodec();
    case 'Float64':
      return float64Codec();
    case 'Date':
      return dateCodec();
    case 'DateTime64': {
      const scale = Number(args.split(',')[0]);
      return Number.isInteger(scale) && scale >= 0 && scale <= 9 ? dateTime64Codec(type, scale) : undefined;
    }
    default:
      return name in INT_TYPES ? integerCodec(name) : undefined;
  }
}

interface NativeColumn {
  name: string;
  read: (rows: readonly InsertRow[]) => Value[];
  codec: Codec;
  /** A value may be missing: NULL in the column (Nullable), or its DEFAULT (sent as Nullable). */
  nullable: boolean;
  defaulted: Codec | undefined;
}

/** One column's values, read by its literal name (V8 then sees one object shape, as in row-encoder.ts). */
function columnReader(name: string): NativeColumn['read'] {
  const body = `const values = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = rows[i][${JSON.stringify(name)}];
    return values;`;
  return new Function('rows', body) as NativeColumn['read'];
}

/**
 * A Native encoder for `columns` of a table (all insertable columns by default), or undefined
 * when a column's type has no Native writer here (the table then always goes as TabSeparated).
 */
export function compileNativeEncoder(
  specs: readonly ColumnSpec[],
  columns: readonly string[],
): NativeEncoder | undefined {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const compiled: NativeColumn[] = [];
  for (const name of columns) {
    const spec = byName.get(name);
    const codec = spec && nativeCodec(spec.type);
    if (!spec || !codec) return undefined;
    const nullable = codec.header.startsWith('Nullable(');
    const canDefault = spec.defaultKind === 'DEFAULT' && !nullable && !codec.header.startsWith('Array(');
    compiled.push({
      name,
      read: columnReader(name),
      codec,
      nullable,
      defaulted: canDefault ? nullableCodec(codec) : undefined,
    });
  }
  const known = new Set(columns);
  let bytesPerRow = 128; // learnt from each batch, so the next one rarely grows its buffer

  return {
    columns,
    encode(rows) {
      const first = rows[0];
      if (first) for (const key of Object.keys(first)) if (!known.has(key)) return undefined;
      const out = new Out(Math.max(4096, Math.ceil(rows.length * bytesPerRow * 1.1)));
      out.varUInt(compiled.length);
      out.varUInt(rows.length);
      for (const column of compiled) {
        const values = column.read(rows);
        let codec = column.codec;
        if (!column.nullable && values.some((value) => value === undefined || value === null)) {
          if (!column.defaulted) return undefined;
          codec = column.defaulted;
        }
        out.text(column.name);
        out.text(codec.header);
        if (!codec.write(out, values)) return undefined;
      }
      if (rows.length > 0) bytesPerRow = out.pos / rows.length;
      return out.buf.subarray(0, out.pos);
    },
  };
}
