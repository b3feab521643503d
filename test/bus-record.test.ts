import { describe, expect, it } from 'vitest';
import {
  decodeRecord,
  encodeRecord,
  PayloadError,
  RECORD_KINDS,
  toJsonPayload,
  type ReceivedRecord,
} from '../src/bus/record.ts';
import { nowMicros } from '../src/util/clock.ts';

const INT64_MAX = 2n ** 63n - 1n;

function trade(overrides: Partial<ReceivedRecord> = {}): ReceivedRecord {
  return {
    kind: 'trade',
    key: '0xcondition-1',
    venueTime: '2025-03-01T12:00:00.123456Z',
    receivedAtUs: 1_740_830_400_123_456n,
    source: { type: 'stream', connection: 'market-1', frame: 42 },
    payload: { token_id: 'tok-yes', price_micro: '430000', shares_micro: '12000000', side: 'BUY' },
    raw: '{"channel":"trades","data":{"price_micro":"430000"}}',
    ...overrides,
  };
}

function roundTrip(record: ReceivedRecord): ReceivedRecord {
  const decoded = decodeRecord(encodeRecord(record));
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.record;
}

describe('record envelope codec', () => {
  it('reads back every field of what it wrote', () => {
    const record = trade();
    expect(roundTrip(record)).toEqual(record);
  });

  it('decodes from UTF-8 bytes the same as from text', () => {
    const text = encodeRecord(trade());
    expect(decodeRecord(Buffer.from(text, 'utf8'))).toEqual(decodeRecord(text));
  });

  it('keeps the receive time exact up to the Int64 limit', () => {
    expect(roundTrip(trade({ receivedAtUs: INT64_MAX })).receivedAtUs).toBe(INT64_MAX);
    expect(roundTrip(trade({ receivedAtUs: 2n ** 53n + 1n })).receivedAtUs).toBe(2n ** 53n + 1n);
  });

  it('carries payload bigints as exact decimal strings', () => {
    const payload = toJsonPayload({
      size_micro: 9_223_372_036_854_775_807n,
      pnl_micro: -(2n ** 60n) - 1n,
      levels: [1n, 2n],
    });
    expect(roundTrip(trade({ payload })).payload).toEqual({
      size_micro: '9223372036854775807',
      pnl_micro: '-1152921504606846977',
      levels: ['1', '2'],
    });
  });

  it('writes a bigint that bypassed the payload type exactly rather than failing', () => {
    const payload = { price_micro: 12_345_678_901_234_567_890n } as unknown as ReceivedRecord['payload'];
    expect(roundTrip(trade({ payload })).payload).toEqual({ price_micro: '12345678901234567890' });
  });

  it('keeps the raw frame character for character, and a missing one as null', () => {
    const raw = '{"note":"line1\\nline2","emoji":"🎯","quote":"\\"","tab":"\t","nul":"\\u0000"}\n';
    expect(roundTrip(trade({ raw })).raw).toBe(raw);
    expect(roundTrip(trade({ raw: null })).raw).toBeNull();
  });

  it('keeps sync sources and records without venue time', () => {
    const record = trade({ kind: 'order', venueTime: null, source: { type: 'sync', job: 'orders', page: 7 } });
    expect(roundTrip(record)).toEqual(record);
  });

  it("keeps a stream source's connection number and frame envelope seq, and reads a source without them", () => {
    const record = trade({
      source: { type: 'stream', connection: 'market-1', frame: 42, conn: 1_772_000_000_000_001, seq: 9_001 },
    });
    expect(roundTrip(record)).toEqual(record);
    expect(roundTrip(trade()).source).toEqual({ type: 'stream', connection: 'market-1', frame: 42 });
  });

  it('round-trips every record kind', () => {
    for (const kind of RECORD_KINDS) expect(roundTrip(trade({ kind })).kind).toBe(kind);
  });
});

describe('decoding what is not a record', () => {
  const valid = JSON.parse(encodeRecord(trade())) as Record<string, unknown>;
  const withField = (field: string, value: unknown) => JSON.stringify({ ...valid, [field]: value });
  const without = (field: string) => {
    const copy = { ...valid };
    delete copy[field];
    return JSON.stringify(copy);
  };

  it.each([
    ['not JSON', '{"v":1,', /not JSON/],
    ['an array', '[1,2]', /not a JSON object/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), /not valid UTF-8/],
    ['another envelope version', withField('v', 2), /envelope version 2/],
    ['an unknown kind', withField('kind', 'horoscope'), /unknown record kind "horoscope"/],
    ['an empty key', withField('key', ''), /key must be a non-empty string/],
    [
      'a numeric receive time',
      withField('received_at_us', 1740830400123456),
      /received_at_us must be a decimal string/,
    ],
    ['a receive time beyond Int64', withField('received_at_us', '9223372036854775808'), /within Int64/],
    ['a source of another type', withField('source', { type: 'carrier-pigeon' }), /neither "stream" nor "sync"/],
    ['a stream source without frame', withField('source', { type: 'stream', connection: 'c' }), /frame/],
    [
      'a stream source with a negative seq',
      withField('source', { type: 'stream', connection: 'c', frame: 1, seq: -1 }),
      /conn and seq/,
    ],
    [
      'a stream source with a connection number as text',
      withField('source', { type: 'stream', connection: 'c', frame: 1, conn: '7' }),
      /conn and seq/,
    ],
    ['no payload', without('payload'), /payload is missing/],
    ['a raw frame that is not text', withField('raw', { a: 1 }), /raw must be a string or null/],
    ['a venue time that is a number', withField('venue_time', 1), /venue_time must be a string or null/],
  ] as const)('reports %s with its reason', (_name, input, reason) => {
    const decoded = decodeRecord(input);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toMatch(reason);
  });

  it('never throws, whatever the bytes', () => {
    let seed = 12345;
    const nextByte = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed & 0xff;
    };
    const text = encodeRecord(trade());
    for (let n = 0; n < 500; n++) {
      const bytes = Buffer.from(text, 'utf8');
      for (let flips = 0; flips < 3; flips++) bytes[nextByte() % bytes.length] = nextByte();
      const decoded = decodeRecord(bytes.subarray(0, bytes.length - (n % 7)));
      expect(typeof decoded.ok).toBe('boolean');
    }
  });
});

describe('toJsonPayload', () => {
  it('drops absent fields and keeps nulls', () => {
    expect(toJsonPayload({ a: undefined, b: null, c: [undefined, 1] })).toEqual({ b: null, c: [null, 1] });
  });

  it.each([
    ['NaN', { price: NaN }, 'payload.price'],
    ['a Map', { book: new Map() }, 'payload.book'],
    ['a Date', { at: [new Date(0)] }, 'payload.at[0]'],
    ['a function', { f: () => 1 }, 'payload.f'],
  ])('refuses %s, naming where it is', (_name, value, where) => {
    expect(() => toJsonPayload(value)).toThrow(PayloadError);
    expect(() => toJsonPayload(value)).toThrow(where);
  });
});

describe('nowMicros', () => {
  it('reads the wall clock in microseconds, never more than a millisecond or two from Date.now()', () => {
    for (let i = 0; i < 1000; i++) {
      const before = BigInt(Date.now()) * 1000n;
      const now = nowMicros();
      const after = BigInt(Date.now()) * 1000n;
      expect(now).toBeGreaterThanOrEqual(before - 2000n);
      expect(now).toBeLessThanOrEqual(after + 2000n);
    }
  });
});
