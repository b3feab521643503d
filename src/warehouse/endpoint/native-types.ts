import { QueryRefused } from './query-refused.ts';

/**
 * Column types of a Native block, read from ClickHouse's binary type encoding
 * (`output_format_native_encode_types_in_binary_format`; docs: "Data types binary encoding
 * specification"). The binary form is asked for because the text form of a revision-0 Native
 * block drops the time zone of a top-level DateTime; from the binary form both the type's name
 * (as a server prints it) and the layout of its data (to step over a column) are exact.
 *
 * Types whose Native data has a layout of its own beyond plain columns (Variant, Dynamic, JSON,
 * AggregateFunction states, …) are refused with a message saying how to read them instead.
 */

export type NativeType =
  | { kind: 'fixed'; name: string; width: number }
  | { kind: 'string'; name: string }
  | { kind: 'array'; name: string; element: NativeType }
  | { kind: 'tuple'; name: string; elements: NativeType[] }
  | { kind: 'map'; name: string; key: NativeType; value: NativeType }
  | { kind: 'nullable'; name: string; inner: NativeType }
  | { kind: 'lowCardinality'; name: string; inner: NativeType };

/** Reads what it is asked for, or throws NeedMoreBytes when the buffer ends first. */
export class ByteReader {
  constructor(
    readonly buf: Buffer,
    public at = 0,
  ) {}
  need(n: number): void {
    if (this.at + n > this.buf.length) throw NEED_MORE;
  }
  byte(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }
  varUInt(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new QueryRefused(1001, 'STD_EXCEPTION', 'malformed varint in a Native block');
  }
  uint64(): number {
    this.need(8);
    const value = this.buf.readBigUInt64LE(this.at);
    this.at += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new QueryRefused(1001, 'STD_EXCEPTION', 'implausible size in a Native block');
    return Number(value);
  }
  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  string(): string {
    return this.bytes(this.varUInt()).toString('utf8');
  }
  skip(n: number): void {
    this.need(n);
    this.at += n;
  }
}

/** Thrown when a block is not complete in the buffer yet. */
export class NeedMoreBytes extends Error {}
const NEED_MORE = new NeedMoreBytes('incomplete Native block');

const FIXED: Record<number, [string, number]> = {
  0x00: ['Nothing', 1],
  0x01: ['UInt8', 1],
  0x02: ['UInt16', 2],
  0x03: ['UInt32', 4],
  0x04: ['UInt64', 8],
  0x05: ['UInt128', 16],
  0x06: ['UInt256', 32],
  0x07: ['Int8', 1],
  0x08: ['Int16', 2],
  0x09: ['Int32', 4],
  0x0a: ['Int64', 8],
  0x0b: ['Int128', 16],
  0x0c: ['Int256', 32],
  0x0d: ['Float32', 4],
  0x0e: ['Float64', 8],
  0x0f: ['Date', 2],
  0x10: ['Date32', 4],
  0x11: ['DateTime', 4],
  0x1d: ['UUID', 16],
  0x28: ['IPv4', 4],
  0x29: ['IPv6', 16],
  0x2d: ['Bool', 1],
  0x31: ['BFloat16', 2],
  0x32: ['Time', 4],
};
const DECIMAL_WIDTH: Record<number, number> = { 0x19: 4, 0x1a: 8, 0x1b: 16, 0x1c: 32 };
const INTERVALS = [
  'Nanosecond',
  'Microsecond',
  'Millisecond',
  'Second',
  'Minute',
  'Hour',
  'Day',
  'Week',
  'Month',
  'Quarter',
  'Year',
];
const UNSUPPORTED: Record<number, string> = {
  0x21: 'Set',
  0x24: 'Function',
  0x25: 'AggregateFunction',
  0x2a: 'Variant',
  0x2b: 'Dynamic',
  0x2e: 'SimpleAggregateFunction',
  0x30: 'JSON',
  0x36: 'QBit',
};

/** ClickHouse's quoteString: a single-quoted literal with backslash escapes. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** ClickHouse's backQuoteIfNeed for tuple element names. */
function elementName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

const fixed = (name: string, width: number): NativeType => ({ kind: 'fixed', name, width });
const array = (element: NativeType, name = `Array(${element.name})`): NativeType => ({ kind: 'array', name, element });

/** Geometry types travel by name only; their data is that of the tuples and arrays they stand for. */
function customType(name: string): NativeType {
  const point: NativeType = { kind: 'tuple', name: 'Point', elements: [fixed('Float64', 8), fixed('Float64', 8)] };
  const lineString = array(point, 'LineString');
  const ring = array(point, 'Ring');
  const polygon = array(ring, 'Polygon');
  const known: Record<string, NativeType> = {
    Point: point,
    Ring: ring,
    LineString: lineString,
    MultiLineString: array(lineString, 'MultiLineString'),
    Polygon: polygon,
    MultiPolygon: array(polygon, 'MultiPolygon'),
  };
  const type = known[name];
  if (!type) throw unsupported(name);
  return type;
}

function unsupported(name: string): QueryRefused {
  return new QueryRefused(
    48,
    'NOT_IMPLEMENTED',
    `Native output of type ${name} is not supported by this endpoint; select the column as String (toString or toJSONString) or use another format`,
  );
}

export function readBinaryType(r: ByteReader): NativeType {
  const code = r.byte();
  const simple = FIXED[code];
  if (simple) return fixed(simple[0], simple[1]);
  if (DECIMAL_WIDTH[code] !== undefined) {
    const precision = r.byte();
    const scale = r.byte();
    return fixed(`Decimal(${precision}, ${scale})`, DECIMAL_WIDTH[code]!);
  }
  switch (code) {
    case 0x12:
      return fixed(`DateTime(${quoted(r.string())})`, 4);
    case 0x13:
      return fixed(`DateTime64(${r.byte()})`, 8);
    case 0x14: {
      const precision = r.byte();
      return fixed(`DateTime64(${precision}, ${quoted(r.string())})`, 8);
    }
    case 0x34:
      return fixed(`Time64(${r.byte()})`, 8);
    case 0x15:
      return { kind: 'string', name: 'String' };
    case 0x16: {
      const width = r.varUInt();
      return fixed(`FixedString(${width})`, width);
    }
    case 0x17:
    case 0x18: {
      const wide = code === 0x18;
      const count = r.varUInt();
      const items: string[] = [];
      for (let i = 0; i < count; i++) {
        const name = r.string();
        r.need(wide ? 2 : 1);
        const value = wide ? r.buf.readInt16LE(r.at) : r.buf.readInt8(r.at);
        r.at += wide ? 2 : 1;
        items.push(`${quoted(name)} = ${value}`);
      }
      return fixed(`Enum${wide ? 16 : 8}(${items.join(', ')})`, wide ? 2 : 1);
    }
    case 0x1e:
      return array(readBinaryType(r));
    case 0x1f:
    case 0x20:
    case 0x2f: {
      const named = code !== 0x1f;
      const count = r.varUInt();
      const elements: NativeType[] = [];
      const parts: string[] = [];
      for (let i = 0; i < count; i++) {
        const name = named ? r.string() : '';
        const element = readBinaryType(r);
        elements.push(element);
        parts.push(named ? `${elementName(name)} ${element.name}` : element.name);
      }
      const tuple: NativeType = { kind: 'tuple', name: `Tuple(${parts.join(', ')})`, elements };
      // Nested(...) is an array of such tuples.
      return code === 0x2f ? array(tuple, `Nested(${parts.join(', ')})`) : tuple;
    }
    case 0x22: {
      const kind = r.byte();
      const name = INTERVALS[kind === 0x1a ? 10 : kind];
      if (!name) throw unsupported(`Interval kind ${kind}`);
      return fixed(`Interval${name}`, 8);
    }
    case 0x23: {
      const inner = readBinaryType(r);
      return { kind: 'nullable', name: `Nullable(${inner.name})`, inner };
    }
    case 0x26: {
      const inner = readBinaryType(r);
      return { kind: 'lowCardinality', name: `LowCardinality(${inner.name})`, inner };
    }
    case 0x27: {
      const key = readBinaryType(r);
      const value = readBinaryType(r);
      return { kind: 'map', name: `Map(${key.name}, ${value.name})`, key, value };
    }
    case 0x2c:
      return customType(r.string());
    default:
      throw unsupported(UNSUPPORTED[code] ?? `with binary code 0x${code.toString(16)}`);
  }
}

/** How many LowCardinality state prefixes (one UInt64 each) a column of this type starts with. */
export function statePrefixCount(type: NativeType): number {
  switch (type.kind) {
    case 'lowCardinality':
      return 1;
    case 'array':
      return statePrefixCount(type.element);
    case 'nullable':
      return statePrefixCount(type.inner);
    case 'map':
      return statePrefixCount(type.key) + statePrefixCount(type.value);
    case 'tuple':
      return type.elements.reduce((sum, element) => sum + statePrefixCount(element), 0);
    default:
      return 0;
  }
}

/** Steps over `rows` values of a column's data (its state prefixes already passed). */
export function skipData(r: ByteReader, type: NativeType, rows: number): void {
  switch (type.kind) {
    case 'fixed':
      r.skip(rows * type.width);
      return;
    case 'string':
      for (let i = 0; i < rows; i++) r.skip(r.varUInt());
      return;
    case 'nullable':
      r.skip(rows);
      skipData(r, type.inner, rows);
      return;
    case 'array':
    case 'map': {
      let total = 0;
      if (rows > 0) {
        r.skip((rows - 1) * 8);
        total = r.uint64();
      }
      if (type.kind === 'array') {
        skipData(r, type.element, total);
      } else {
        skipData(r, type.key, total);
        skipData(r, type.value, total);
      }
      return;
    }
    case 'tuple':
      for (const element of type.elements) skipData(r, element, rows);
      return;
    case 'lowCardinality':
      skipLowCardinality(r, type.inner, rows);
  }
}

const HAS_ADDITIONAL_KEYS = 1 << 9;
const INDEX_WIDTHS = [1, 2, 4, 8];

/** Granules of (flags, optional dictionary keys, indexes) until `rows` indexes have passed. */
function skipLowCardinality(r: ByteReader, inner: NativeType, rows: number): void {
  // The dictionary holds the keys without their Nullable: index 0 stands for NULL.
  const keyType = inner.kind === 'nullable' ? inner.inner : inner;
  let remaining = rows;
  while (remaining > 0) {
    const flags = r.uint64();
    const width = INDEX_WIDTHS[flags & 0xff];
    if (width === undefined)
      throw new QueryRefused(1001, 'STD_EXCEPTION', `unknown LowCardinality index type ${flags & 0xff}`);
    if (flags & HAS_ADDITIONAL_KEYS) skipData(r, keyType, r.uint64());
    const count = r.uint64();
    r.skip(count * width);
    remaining -= count;
  }
}
