import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { positionAfter, type Batch } from '../src/bus/bus.ts';
import { decodeRecord, encodeRecord, type BusRecord, type ReceivedRecord } from '../src/bus/record.ts';
import { nextAnchorMs } from '../src/capture/market/anchors.ts';
import { BookBatcher } from '../src/capture/books/batcher.ts';
import { canonicalMs, readBookUpdates, type BookUpdate } from '../src/records/index.ts';
import { replayBookRecords } from '../src/capture/books/replay.ts';
import { recordsOf, TokenBooks, type BookFrame, type RestBook } from '../src/capture/books/token-books.ts';
import { quoteRecord, SeenTrades } from '../src/capture/market/market-records.ts';
import { inShard } from '../src/capture/market/catalogue.ts';
import { ConnectionPlan } from '../src/capture/market/connection-plan.ts';
import { ConnectionCoverage, endOf, startOf } from '../src/capture/coverage/connection-coverage.ts';
import { FileCoverageStore } from '../src/capture/coverage/store.ts';
import { isFrameProblem, microsToIso, parseFrame } from '../src/capture/frames/frame.ts';
import { WHOLE_STREAM } from '../src/capture/coverage/gaps.ts';
import { normaliseMicros } from '../src/capture/frames/micro-fields.ts';
import type { Origin } from '../src/capture/frames/record-builders.ts';
import { Prng } from '../src/simulator/prng.ts';

type Payload = Record<string, unknown>;

describe('frame envelope', () => {
  it('reads type, frame number, venue time and data, and flags fields it does not know', () => {
    const frame = parseFrame('{"type":"trades","seq":7,"ts":"2025-01-06T12:00:00.123Z","data":{"trade_id":"t1"}}');
    expect(frame).toEqual({
      type: 'trades',
      seq: 7,
      ts: '2025-01-06T12:00:00.123Z',
      data: { trade_id: 't1' },
      unknownFields: false,
    });
    expect(parseFrame('{"type":"heartbeat","seq":8,"x_hint":1}')).toMatchObject({
      type: 'heartbeat',
      unknownFields: true,
    });
    // The portfolio stream numbers its events with a decimal string; its event is the whole object.
    expect(parseFrame('{"type":"portfolio.sync","seq":"12","stream_id":"s"}')).toMatchObject({
      seq: 12,
      data: { stream_id: 's' },
    });
  });

  it('names what is wrong with a frame instead of throwing', () => {
    const problems = [
      '{"type":"orderbook","data":{"kind":"snaps',
      '[1,2]',
      '{"type":"orderbook","seq":"x"}',
      '{"type":"orderbook","seq":1,"ts":1736164800000}',
      '{"seq":1}',
    ].map((raw) => {
      const parsed = parseFrame(raw);
      return isFrameProblem(parsed) ? parsed.problem : 'parsed';
    });
    expect(problems).toEqual(['invalid_json', 'not_an_object', 'wrong_types', 'wrong_types', 'wrong_types']);
  });
});

describe('micro values', () => {
  it('become canonical decimal strings at any depth; values that are not whole micro-units are named', () => {
    const data = {
      price_micro: '000430000',
      shares_micro: 5_000_000,
      order: { fee_micro: '-0' },
      fills: [{ size_micro: '9223372036854775807' }],
      label_micro_not: 1.5,
    };
    const problems: string[] = [];
    normaliseMicros(data, problems);
    expect(data).toEqual({
      price_micro: '430000',
      shares_micro: '5000000',
      order: { fee_micro: '0' },
      fills: [{ size_micro: '9223372036854775807' }],
      label_micro_not: 1.5,
    });
    expect(problems).toEqual([]);
    const bad = { a_micro: '1.5', b: [{ c_micro: '9223372036854775808' }], d_micro: 1e300 };
    normaliseMicros(bad, problems);
    expect(problems).toEqual([
      'a_micro: "1.5" is not a whole number of micro-units',
      'b[0].c_micro: "9223372036854775808" is not a whole number of micro-units',
      'd_micro: 1e+300 is not a whole number of micro-units',
    ]);
  });
});

/** The book updates of `book_change` records as a reader sees them: levels as [price, size] pairs. */
function updatesOf(records: readonly ReceivedRecord[]) {
  const pairs = (flat: ReadonlyArray<number | string>) =>
    Array.from({ length: flat.length / 2 }, (_, i) => [String(flat[2 * i]), String(flat[2 * i + 1])]);
  return records
    .filter((r) => r.kind === 'book_change')
    .flatMap((r) => readBookUpdates(r))
    .map((u) => ({
      token: u.tokenId,
      condition: u.conditionId,
      sequence: String(u.sequence),
      venueSequence: u.venueSequence,
      update: u.update,
      bids: pairs(u.bids),
      asks: pairs(u.asks),
      raw: u.raw,
    }));
}

const origin = (frameNo: number, atMs: number): Origin => ({
  connectionId: 'c1',
  frameNo,
  receivedAtUs: BigInt(atMs) * 1000n + 250n,
});
const iso = (atMs: number) => new Date(atMs).toISOString();
const T0 = Date.UTC(2025, 0, 6, 12);

function snapshotFrame(
  frameNo: number,
  atMs: number,
  sequence: number,
  bids: Array<[number, number]>,
  asks: Array<[number, number]>,
  extra = '',
): BookFrame {
  const level = ([p, s]: [number, number]) => ({ price_micro: String(p), shares_micro: String(s) });
  const data = {
    kind: 'snapshot',
    token_id: 'tok',
    condition_id: 'cond',
    market_id: 'm',
    sequence,
    bids: bids.map(level),
    asks: asks.map(level),
  };
  const raw = JSON.stringify({ type: 'orderbook', seq: frameNo, ts: iso(atMs), data }) + extra;
  return {
    origin: origin(frameNo, atMs),
    venueTime: iso(atMs),
    data: extra ? { ...data, x_extra: 1 } : data,
    raw,
    unknownEnvelope: false,
  };
}

describe('token books', () => {
  it('turn replacement snapshots into level-change records with a growing capture sequence, and skip frames older than the ladder', () => {
    const books = new TokenBooks({ sequenceBase: 1_000n });
    const out: BusRecord[] = [];
    out.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 10, [[480000, 100]], [[520000, 70]]))));
    out.push(...recordsOf(books.onFrame(snapshotFrame(2, T0 + 5, 11, [[480000, 90]], [[520000, 70]]))));
    out.push(...recordsOf(books.onFrame(snapshotFrame(3, T0 + 6, 11, [[480000, 90]], [[520000, 70]])))); // nothing changed: no record
    out.push(...recordsOf(books.onFrame(snapshotFrame(4, T0 + 7, 9, [[400000, 1]], [])))); // older than the ladder: skipped
    expect(updatesOf(out)).toEqual([
      {
        token: 'tok',
        condition: 'cond',
        sequence: '1001',
        venueSequence: 10,
        update: 'snapshot',
        bids: [['480000', '100']],
        asks: [['520000', '70']],
        raw: null,
      },
      {
        token: 'tok',
        condition: 'cond',
        sequence: '1002',
        venueSequence: 11,
        update: 'snapshot',
        bids: [['480000', '90']],
        asks: [],
        raw: null,
      },
    ]);
    // The token's first book in this run is also written whole, at the sequence of its changes.
    expect(out.map((r) => r.kind)).toEqual(['book_change', 'book_snapshot', 'book_change']);
    expect(out[1]!.payload).toMatchObject({
      reason: 'first_book',
      source: 'stream',
      sequence: '1001',
      bids: [['480000', '100']],
      asks: [['520000', '70']],
    });
    expect(out.every((r) => r.key === 'cond' && r.raw === null)).toBe(true);
    expect(out[2]).toMatchObject({ venueTime: iso(T0 + 5), source: { type: 'stream', connection: 'c1', frame: 2 } });
    expect(books.staleFrames).toBe(1);
  });

  it('give a best quote (prices only, §6.2) the sizes resting at its prices when the ladder is at its sequence', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    books.onFrame(
      snapshotFrame(
        1,
        T0,
        10,
        [
          [480000, 100],
          [470000, 5],
        ],
        [[520000, 70]],
      ),
    );
    const quote = (sequence: number, bid: string | null, ask: string | null) => {
      const data = {
        token_id: 'tok',
        condition_id: 'cond',
        market_id: 'm',
        sequence,
        best_bid_micro: bid,
        best_ask_micro: ask,
      };
      const raw = JSON.stringify({ type: 'best_quote', seq: 2, ts: iso(T0), data });
      return quoteRecord({ origin: origin(2, T0), ts: iso(T0), seq: 2, data, raw, conditionOf: () => 'cond' }, books);
    };
    const same = quote(10, '480000', '520000');
    expect(same.payload).toMatchObject({ best_bid_size_micro: '100', best_ask_size_micro: '70', sizes_from: 'book' });
    expect(same.raw).not.toContain('size'); // the venue's frame as it came
    expect(quote(10, null, '520000').payload).toMatchObject({ best_bid_size_micro: null, best_ask_size_micro: '70' });
    // Another sequence, or a price the ladder does not hold: no sizes rather than wrong ones.
    expect(quote(9, '480000', '520000').payload).not.toHaveProperty('best_bid_size_micro');
    expect(quote(10, '490000', '520000').payload).not.toHaveProperty('best_bid_size_micro');
  });

  it('keep the raw frame of a delta, and of a snapshot that carried fields they do not read', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    const out: BusRecord[] = [];
    out.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 1, [[480000, 100]], [], ',"x":1}'))));
    const delta = {
      kind: 'delta',
      token_id: 'tok',
      condition_id: 'cond',
      sequence: 2,
      changes: [
        { side: 'bid', price_micro: '480000', shares_micro: '0' },
        { side: 'ask', price_micro: '530000', shares_micro: '5' },
      ],
    };
    const raw = JSON.stringify({ type: 'orderbook', seq: 2, ts: iso(T0 + 1), data: delta });
    out.push(
      ...recordsOf(
        books.onFrame({ origin: origin(2, T0 + 1), venueTime: iso(T0 + 1), data: delta, raw, unknownEnvelope: false }),
      ),
    );
    const updates = updatesOf(out);
    expect(updates[0]!.raw).toContain('"x":1');
    expect(updates[1]).toMatchObject({ raw, update: 'delta', bids: [['480000', '0']], asks: [['530000', '5']] });
  });

  it('record a crossed book once, as the venue sent it, and again only after it uncrossed', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    const out: BusRecord[] = [];
    out.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 1, [[550000, 1]], [[540000, 1]]))));
    out.push(...recordsOf(books.onFrame(snapshotFrame(2, T0 + 1, 2, [[550000, 2]], [[540000, 1]]))));
    out.push(...recordsOf(books.onFrame(snapshotFrame(3, T0 + 2, 3, [[530000, 2]], [[540000, 1]]))));
    out.push(...recordsOf(books.onFrame(snapshotFrame(4, T0 + 3, 4, [[540000, 2]], [[540000, 1]]))));
    const quality = out.filter((r) => r.kind === 'data_quality').map((r) => (r.payload as Payload).problem);
    expect(quality).toEqual(['crossed_book', 'locked_book']);
    expect(books.ladder('tok')?.bestBid()).toBe(540000);
  });

  it('apply a REST re-seed only when it is not older than the ladder, and always write the whole ladder with the reason', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    const out: BusRecord[] = [];
    out.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 5, [[480000, 100]], []))));
    const rest = (sequence: number, shares: bigint): RestBook => ({
      conditionId: 'cond',
      sequence,
      asOf: iso(T0 + 10),
      bids: [{ price_micro: 480000n, shares_micro: shares }],
      asks: [],
      raw: '{"rest":true}',
    });
    out.push(...recordsOf(books.reseed('tok', rest(4, 1n), 'reconnect', origin(9, T0 + 10))));
    out.push(...recordsOf(books.reseed('tok', rest(6, 50n), 'sequence_reset', origin(10, T0 + 11))));
    out.push(...recordsOf(books.reseed('tok', rest(6, 60n), 'anchor', origin(11, T0 + 12))));
    const summary = out.map((r) => {
      if (r.kind === 'book_change') {
        const [u] = updatesOf([r]);
        return [r.kind, u!.update, null, JSON.stringify(u!.bids)];
      }
      return [
        r.kind,
        (r.payload as Payload).reason ?? (r.payload as Payload).problem,
        (r.payload as Payload).source ?? null,
        JSON.stringify((r.payload as Payload).bids ?? null),
      ];
    });
    expect(summary).toEqual([
      ['book_change', 'snapshot', null, '[["480000","100"]]'],
      ['book_snapshot', 'first_book', 'stream', '[["480000","100"]]'],
      ['book_snapshot', 'reconnect', 'stream', '[["480000","100"]]'], // REST older than the stream: the ladder stands
      ['book_change', 'reseed', null, '[["480000","50"]]'],
      ['book_snapshot', 'sequence_reset', 'rest', '[["480000","50"]]'],
      ['book_change', 'reseed', null, '[["480000","60"]]'], // a re-seed's changes come first (recordsOf), as the batcher writes them
      ['data_quality', 'rest_book_mismatch', null, 'null'],
      ['book_snapshot', 'anchor', 'rest', '[["480000","60"]]'],
    ]);
    expect(out[4]!.raw).toBe('{"rest":true}');
    expect((out[4]!.payload as Payload).as_of).toBe(microsToIso(BigInt(T0 + 10) * 1000n));
  });

  it('replay from the records as published (through the wire codec) to the ladder at any instant', () => {
    const books = new TokenBooks({ sequenceBase: 0n });
    const out: BusRecord[] = [];
    out.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 1, [[480000, 100]], [[520000, 7]]))));
    out.push(books.snapshot('tok', 'hour', BigInt(T0 + 10) * 1000n)!);
    out.push(
      ...recordsOf(
        books.onFrame(
          snapshotFrame(
            2,
            T0 + 20,
            2,
            [
              [480000, 90],
              [470000, 3],
            ],
            [],
          ),
        ),
      ),
    );
    out.push(...recordsOf(books.onFrame(snapshotFrame(3, T0 + 30, 3, [[470000, 3]], [[510000, 1]]))));
    const wire = out.map((r) => {
      const decoded = decodeRecord(encodeRecord(r));
      if (!decoded.ok) throw new Error(decoded.reason);
      return decoded.record;
    });
    const at = (ms: number) => replayBookRecords(wire, 'tok', BigInt(ms) * 1000n)?.ladder.levels();
    expect(at(T0 - 1)).toBeUndefined();
    expect(at(T0 + 25)).toEqual({
      bids: [
        { priceMicro: 480000, sizeMicro: '90' },
        { priceMicro: 470000, sizeMicro: '3' },
      ],
      asks: [],
    });
    expect(at(T0 + 30)).toEqual({
      bids: [{ priceMicro: 470000, sizeMicro: '3' }],
      asks: [{ priceMicro: 510000, sizeMicro: '1' }],
    });
    // The anchor alone (without the first change record) gives the book of its hour.
    expect(replayBookRecords(wire.slice(1, 2), 'tok', BigInt(T0 + 15) * 1000n)?.ladder.levels().asks).toEqual([
      { priceMicro: 520000, sizeMicro: '7' },
    ]);
  });
});

describe('connection coverage', () => {
  it('drops a frame number seen before, and counts the numbers skipped', () => {
    const coverage = new ConnectionCoverage('market', 'books_reseeded');
    expect([1, 2, 2, 3, 7, 5].map((n) => coverage.admit(n))).toEqual([0, 0, 'duplicate', 0, 3, 'duplicate']);
    coverage.connected();
    expect(coverage.admit(1)).toBe(0);
    expect(coverage.duplicates).toBe(2);
  });

  it('bounds a gap conservatively with both clocks, and records nothing before coverage was ever established', () => {
    const coverage = new ConnectionCoverage('market', 'books_reseeded');
    coverage.received({ venueTime: iso(T0), receivedAtUs: BigInt(T0) * 1000n + 400n }, origin(1, T0));
    coverage.lose('silence', 'quiet', WHOLE_STREAM);
    expect(coverage.lost).toBe(false);
    expect(
      coverage.resumed({ venueTime: iso(T0 + 50), receivedAtUs: BigInt(T0 + 50) * 1000n }, origin(2, T0 + 50)),
    ).toBeNull();
    // Venue clock behind ours at the start, ahead at the end: the gap takes the wider of each.
    const last = { venueTime: iso(T0 + 100), receivedAtUs: BigInt(T0 + 103) * 1000n };
    coverage.received(last, origin(3, T0 + 103));
    coverage.lose('disconnected', 'closed with code 1006', WHOLE_STREAM);
    coverage.refused();
    const ack = { venueTime: iso(T0 + 900), receivedAtUs: BigInt(T0 + 899) * 1000n };
    const gap = coverage.resumed(ack, origin(1, T0 + 899));
    expect(gap?.payload).toMatchObject({
      reason: 'disconnected',
      gap_start: microsToIso(startOf(last)),
      gap_end: microsToIso(endOf(ack)),
      refused_attempts: 1,
    });
    expect(startOf(last)).toBe(BigInt(T0 + 100) * 1000n);
    expect(endOf(ack)).toBe(BigInt(T0 + 900) * 1000n + 999n);
  });
});

describe('schedules, plans, shards, marks', () => {
  it('anchors every N minutes and at each UTC hour', () => {
    const at = Date.UTC(2025, 0, 6, 12, 52, 10);
    expect(nextAnchorMs(at, 15 * 60_000)).toEqual({ atMs: Date.UTC(2025, 0, 6, 13), hour: true });
    expect(nextAnchorMs(Date.UTC(2025, 0, 6, 13, 0, 0), 15 * 60_000)).toEqual({
      atMs: Date.UTC(2025, 0, 6, 13, 15),
      hour: false,
    });
    expect(nextAnchorMs(at, 7 * 60_000).hour).toBe(false);
    expect(nextAnchorMs(at, 0)).toEqual({ atMs: Date.UTC(2025, 0, 6, 13), hour: true });
  });

  it('keeps a market on one socket, near its event, within the tokens per socket', () => {
    const plan = new ConnectionPlan(4);
    expect(plan.place('e1', 'c1', 2)).toEqual({ connection: 0, eventIsNew: true });
    expect(plan.place('e1', 'c2', 2)).toEqual({ connection: 0, eventIsNew: false });
    expect(plan.place('e1', 'c3', 2)).toEqual({ connection: 1, eventIsNew: false });
    expect(plan.place('e2', 'c4', 6)).toEqual({ connection: 2, eventIsNew: true }); // larger than a socket: one of its own
    expect(plan.release('e1', 'c1', 2)).toEqual({ connection: 0, eventGoneFrom: undefined });
    expect(plan.place('e3', 'c5', 2)).toEqual({ connection: 0, eventIsNew: true });
    plan.release('e1', 'c2', 2);
    expect(plan.release('e1', 'c3', 2)).toEqual({ connection: 1, eventGoneFrom: 0 });
  });

  it('shares events between shards: each event in exactly one, roughly evenly', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `event-${i}`);
    const counts = [0, 1, 2].map((index) => ids.filter((id) => inShard(id, { index, count: 3 })).length);
    expect(counts.reduce((a, b) => a + b)).toBe(3000);
    for (const n of counts) expect(n).toBeGreaterThan(900);
    expect(ids.every((id) => inShard(id, undefined))).toBe(true);
  });

  it('keeps coverage marks in a file a later process reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capture-store-'));
    const path = join(dir, 'nested', 'coverage.json');
    const store = new FileCoverageStore(path);
    expect(await store.load('market')).toBeNull();
    await Promise.all([store.save('market', 1736164800000001n), store.save('account', 5n)]);
    await store.save('market', 1736164800000002n);
    const later = new FileCoverageStore(path);
    expect(await later.load('market')).toBe(1736164800000002n);
    expect(await later.load('account')).toBe(5n);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('book updates in batches', () => {
  it('reads a venue time as milliseconds exactly when toISOString writes that text (the offsets of later updates stay exact)', () => {
    const reference = (text: string) => {
      const ms = Date.parse(text);
      return Number.isFinite(ms) && new Date(ms).toISOString() === text ? ms : null;
    };
    const random = new Prng(11);
    const pick = (k: number) => Math.floor(random.float() * k);
    const pad = (v: number, width: number) => String(v).padStart(width, '0');
    const texts = [
      '2024-02-29T23:59:59.999Z',
      '2023-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '0999-12-31T23:59:59.999Z',
      '2026-03-02T24:00:00.000Z',
      '2026-03-02T10:00:00.000+',
      '2026-03-02 10:00:00.000Z',
    ];
    for (let i = 0; i < 20_000; i++) {
      let text =
        i % 3 === 0
          ? new Date(pick(2 ** 45) - 2 ** 44).toISOString()
          : `${pad(pick(10_000), 4)}-${pad(pick(14), 2)}-${pad(pick(33), 2)}T${pad(pick(26), 2)}:${pad(pick(62), 2)}:${pad(pick(62), 2)}.${pad(pick(1000), 3)}Z`;
      if (i % 7 === 0)
        text = (text.slice(0, pick(24)) + String.fromCharCode(32 + pick(90)) + text.slice(pick(24) + 1)).padEnd(
          24,
          'Z',
        );
      texts.push(text);
    }
    const differing = texts.filter((text) => canonicalMs(text) !== reference(text));
    expect(differing).toEqual([]);
    expect(texts.filter((text) => canonicalMs(text) !== null).length).toBeGreaterThan(5_000);
  });

  const snapshotOf = (books: TokenBooks, atMs: number) => books.snapshot('tok', 'anchor', BigInt(atMs) * 1000n)!;

  it('replay to the same ladder at every instant as one record per update, through the wire codec', () => {
    const frames = Array.from({ length: 40 }, (_, i) => {
      const bids: Array<[number, number]> = [[480000 - (i % 3) * 1000, 100 + i]];
      if (i % 4 !== 0) bids.push([470000, 7 + (i % 5)]);
      // Every fifth frame's time is written with microseconds: it travels as text, the rest as offsets.
      const frame = snapshotFrame(i + 1, T0 + i * 10, i + 1, bids, [[520000 + (i % 2) * 1000, 70]]);
      return i % 5 === 4 ? { ...frame, venueTime: `${iso(T0 + i * 10).slice(0, -1)}250Z` } : frame;
    });
    const run = (batched: boolean): ReceivedRecord[] => {
      const out: BusRecord[] = [];
      const batcher = new BookBatcher({ sink: { write: (records) => out.push(...records) }, nowUs: () => 0n });
      const books = new TokenBooks({ sequenceBase: 0n });
      frames.forEach((frame, i) => {
        const output = books.onFrame(frame);
        if (batched) for (const u of output.updates) batcher.add(u);
        const records: BusRecord[] = batched ? output.records : recordsOf(output);
        if (i === 0) records.push(snapshotOf(books, T0));
        batcher.write(records);
      });
      batcher.flush();
      return out.map((r) => {
        const decoded = decodeRecord(encodeRecord(r));
        if (!decoded.ok) throw new Error(decoded.reason);
        return decoded.record;
      });
    };
    const single = run(false);
    const batched = run(true);
    expect(batched.filter((r) => r.kind === 'book_change').length).toBeLessThan(3);
    expect(updatesOf(batched)).toEqual(updatesOf(single));
    for (let atMs = T0; atMs <= T0 + 400; atMs += 5) {
      const atUs = BigInt(atMs) * 1000n + 300n;
      const want = replayBookRecords(single, 'tok', atUs);
      expect(want).not.toBeNull();
      expect(replayBookRecords(batched, 'tok', atUs)).toEqual(want);
    }
  });

  it('hold updates until a snapshot or gap passes, a limit is reached or time is up, and write held records first, keys in order', () => {
    const published: BusRecord[][] = [];
    let nowUs = 0n;
    const batcher = new BookBatcher({
      sink: { write: (records) => published.push([...records]) },
      nowUs: () => nowUs,
      limits: { maxUpdates: 4, maxDelayMs: 1_000, maxBytes: 1_000_000 },
    });
    const update = (tokenId: string, conditionId: string, frameNo: number, connectionId = 'c1'): BookUpdate => ({
      tokenId,
      conditionId,
      sequence: BigInt(frameNo),
      venueSequence: frameNo,
      update: 'snapshot',
      venueTime: iso(T0 + frameNo),
      origin: { connectionId, frameNo, receivedAtUs: BigInt(T0 + frameNo) * 1000n },
      changes: [{ side: 'bid', priceMicro: 480000, sizeMicro: String(frameNo) }],
      raw: null,
    });
    const summary = () =>
      published.splice(0).map((records) =>
        records.map((r) =>
          r.kind === 'book_change'
            ? `${r.key}:${updatesOf([r])
                .map((u) => u.sequence)
                .join(',')}`
            : r.kind,
        ),
      );
    batcher.add(update('a1', 'A', 1));
    batcher.add(update('b1', 'B', 2));
    batcher.add(update('a2', 'A', 3));
    const trade = {
      kind: 'trade',
      key: 'A',
      venueTime: null,
      receivedAtUs: 4n,
      source: { type: 'stream', connection: 'c1', frame: 4 },
      payload: {},
      raw: '{}',
    } as ReceivedRecord as BusRecord;
    batcher.write([trade]);
    expect(summary()).toEqual([['trade']]); // other records pass; updates stay held
    expect(batcher.heldSinceUs()).toBe(0n);
    const gap = {
      kind: 'capture_gap',
      key: 'market',
      venueTime: null,
      receivedAtUs: 5n,
      source: { type: 'stream', connection: 'c1', frame: 4 },
      payload: {},
      raw: null,
    } as ReceivedRecord as BusRecord;
    batcher.write([gap]);
    expect(summary()).toEqual([['A:1,3', 'B:2', 'capture_gap']]);
    expect(batcher.heldSinceUs()).toBeNull();
    for (let n = 10; n < 14; n++) batcher.add(update('b1', 'B', n));
    expect(summary()).toEqual([['B:10,11,12,13']]); // four held: written
    batcher.add(update('a1', 'A', 20));
    batcher.add(update('a1', 'A', 21, 'c2')); // another connection: what was held goes first
    expect(summary()).toEqual([['A:20']]);
    nowUs = 999_999n;
    batcher.flushDue();
    expect(summary()).toEqual([]);
    nowUs = 1_000_000n;
    batcher.flushDue();
    expect(summary()).toEqual([['A:21']]);
    batcher.add(update('a1', 'A', 30));
    batcher.flush();
    expect(summary()).toEqual([['A:30']]);
  });
});

describe('publishing', () => {
  it('publishes per topic in order, knows up to when all is durable, and turns a record the bus refuses as too large into a data-quality record', async () => {
    const { EmbeddedBus } = await import('../src/bus/embedded/embedded-bus.ts');
    const { createTopicCatalogue } = await import('../src/bus/topics.ts');
    const { RecordPublisher } = await import('../src/capture/publisher.ts');
    const { collect } = await import('./capture-helpers.ts');
    const topics = createTopicCatalogue('pub-test');
    // A books topic that takes records of 2 KB at most.
    const specs = topics.topics.map((t) => (t.kinds.includes('book_change') ? { ...t, maxRecordBytes: 2048 } : t));
    const bus = new EmbeddedBus({ topics: specs });
    const received: BusRecord[] = [];
    const stopCollecting = await collect(bus, received, topics);
    let nowUs = 1_000n;
    const clock = { now: () => Number(nowUs / 1000n), sleep: async () => undefined, epochMicros: () => nowUs };
    const publisher = new RecordPublisher({ bus, topics: topics, clock });
    const books = new TokenBooks({ sequenceBase: 0n });
    const records: BusRecord[] = [];
    records.push(...recordsOf(books.onFrame(snapshotFrame(1, T0, 1, [[480000, 100]], []))));
    const deep = (size: number) =>
      Array.from({ length: 300 }, (_, i) => [100000 + i * 1000, i === 0 ? size : 1 + i] as [number, number]);
    records.push(...recordsOf(books.onFrame(snapshotFrame(2, T0 + 1, 2, deep(1), [], ',"x":1}')))); // 300 levels and the raw frame: too large
    records.push(...recordsOf(books.onFrame(snapshotFrame(3, T0 + 2, 3, deep(9), [])))); // one level resized: small
    publisher.push(records);
    nowUs = 2_000n;
    expect(publisher.durableThroughUs()).toBe(1_000n);
    await publisher.drain();
    expect(publisher.durableThroughUs()).toBe(2_000n);
    await new Promise((r) => setTimeout(r, 50));
    await stopCollecting();
    await bus.close();
    const kinds = received.map((r) => [
      r.kind,
      r.kind === 'book_change'
        ? updatesOf([r])[0]!.sequence
        : ((r.payload as Payload).problem ?? (r.payload as Payload).reason),
    ]);
    // Topics are delivered independently; within the books topic, in order.
    expect(kinds.map((k) => k.join(':')).sort()).toEqual([
      'book_change:1',
      'book_change:3',
      'book_snapshot:first_book',
      'data_quality:record_too_large',
    ]);
    expect(updatesOf(received).map((u) => u.sequence)).toEqual(['1', '3']);
    expect(received.find((r) => r.kind === 'data_quality')!.key).toBe('cond');
    expect(publisher.published).toBe(4);
  });
});

describe('what the coverage mark may claim', () => {
  /** A publisher on a bus nobody reads whose gaps' partition takes one record: the second publish waits. */
  async function blockedPublisher(startUs: bigint) {
    const { EmbeddedBus } = await import('../src/bus/embedded/embedded-bus.ts');
    const { RecordPublisher } = await import('../src/capture/publisher.ts');
    const { TOPICS } = await import('../src/bus/topics.ts');
    const { gapRecord, WHOLE_STREAM } = await import('../src/capture/coverage/gaps.ts');
    const { collect } = await import('./capture-helpers.ts');
    const bus = new EmbeddedBus({ capacity: { records: 1 } });
    const at = { nowUs: startUs };
    const clock = { now: () => Number(at.nowUs / 1000n), sleep: async () => undefined, epochMicros: () => at.nowUs };
    const publisher = new RecordPublisher({ bus, topics: TOPICS, clock });
    const gap = (stream: string, gapStartUs: bigint) =>
      gapRecord(
        {
          stream,
          reason: 'silence',
          detail: 'no frame for 30 s',
          scope: WHOLE_STREAM,
          startUs: gapStartUs,
          endUs: at.nowUs,
          recovery: 'none',
        },
        origin(1, 0),
      );
    const handOver = async (stream: string, gapStartUs: bigint) => {
      publisher.push([gap(stream, gapStartUs)]);
      await new Promise((r) => setTimeout(r, 10));
    };
    /** Lets a reader take everything, then returns what the mark may claim once all is durable. */
    const drained = async () => {
      const received: BusRecord[] = [];
      const stop = await collect(bus, received);
      await publisher.drain();
      // On the embedded bus a gap record counts once the reader has committed past it.
      const deadline = Date.now() + 2_000;
      while (publisher.durableThroughUs() < at.nowUs && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 5));
      const through = publisher.durableThroughUs();
      await stop();
      await bus.close();
      return through;
    };
    return { publisher, at, handOver, drained };
  }

  it('holds it at the start of a loss until the gap that records the loss is durable', async () => {
    const { publisher, at, handOver, drained } = await blockedPublisher(10_000_000n);
    await handOver('market', 9_000_000n);
    // A silence found at 10 s that began at 4 s, handed over while the bus cannot take it.
    await handOver('market', 4_000_000n);
    at.nowUs = 11_000_000n;
    expect(publisher.durableThroughUs()).toBe(4_000_000n);
    expect(await drained()).toBe(11_000_000n);
  });

  it('holds it at the start of a loss whose gap waits behind a newer record in flight', async () => {
    // The fault suite's case: the bus away (a Kafka restart), a gap of another stream in flight
    // since 10 s, then a market silence that began at 4 s found and queued behind it; capture
    // killed before either is durable. The mark must not pass 4 s, or the next run's
    // capture_not_running gap starts after the silence began and its trades are lost unrecorded.
    const { publisher, at, handOver, drained } = await blockedPublisher(9_000_000n);
    await handOver('account', 9_000_000n);
    at.nowUs = 10_000_000n;
    await handOver('account', 10_000_000n);
    at.nowUs = 12_000_000n;
    await handOver('market', 4_000_000n);
    expect(publisher.durableThroughUs()).toBe(4_000_000n);
    expect(await drained()).toBe(12_000_000n);
  });
});

describe('what the coverage mark may claim on the embedded bus', () => {
  it("holds it at a gap's start until every reader has committed past the gap record, not only once it is in memory", async () => {
    const { EmbeddedBus } = await import('../src/bus/embedded/embedded-bus.ts');
    const { RecordPublisher } = await import('../src/capture/publisher.ts');
    const { TOPICS } = await import('../src/bus/topics.ts');
    const { gapRecord, WHOLE_STREAM } = await import('../src/capture/coverage/gaps.ts');
    // The embedded mode's case: a silence from 4 s found at 40 s, its gap handed to the in-memory
    // bus; a SIGKILL before the loader stores it loses it with the bus, so the mark stays at 4 s.
    const bus = new EmbeddedBus();
    let nowUs = 40_000_000n;
    const clock = { now: () => Number(nowUs / 1000n), sleep: async () => undefined, epochMicros: () => nowUs };
    const publisher = new RecordPublisher({ bus, topics: TOPICS, clock });
    const batches: Batch[] = [];
    const subscription = await bus.subscribe({
      group: 'loaders',
      topics: [TOPICS.topicFor('capture_gap')],
      onBatch: async (batch) => void batches.push(batch),
    });
    const scope = { stream: 'market', reason: 'silence', detail: 'no frame for 30 s', scope: WHOLE_STREAM } as const;
    publisher.push([gapRecord({ ...scope, startUs: 4_000_000n, endUs: nowUs, recovery: 'none' }, origin(1, 0))]);
    await publisher.drain();
    nowUs = 41_000_000n;
    expect(publisher.durableThroughUs()).toBe(4_000_000n);
    while (batches.length === 0) await new Promise((r) => setTimeout(r, 5));
    await subscription.commit([positionAfter(batches.at(-1)!)]);
    expect(publisher.durableThroughUs()).toBe(41_000_000n);
    await subscription.close();
    await bus.close();
  });
});

describe('back-pressure from the bus', () => {
  it('asks to stop reading the venue while too many records wait for a bus that blocks, and to start again once drained', async () => {
    const { EmbeddedBus } = await import('../src/bus/embedded/embedded-bus.ts');
    const { RecordPublisher } = await import('../src/capture/publisher.ts');
    const { TOPICS } = await import('../src/bus/topics.ts');
    const { collect } = await import('./capture-helpers.ts');
    // Nobody reads yet: each partition takes 5 records, then publishing waits.
    const bus = new EmbeddedBus({ capacity: { records: 5 } });
    const signals: boolean[] = [];
    const clock = { now: () => 0, sleep: async () => undefined, epochMicros: () => 1n };
    const publisher = new RecordPublisher({
      bus,
      topics: TOPICS,
      clock,
      onPressure: (slow) => signals.push(slow),
      highWater: 40,
      lowWater: 10,
    });
    const books = new TokenBooks({ sequenceBase: 0n });
    for (let i = 0; i < 60; i++) {
      const out: BusRecord[] = [];
      out.push(...recordsOf(books.onFrame(snapshotFrame(i + 1, T0 + i, i + 1, [[480000, i + 1]], []))));
      publisher.push(out);
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(signals).toEqual([true]);
    const received: BusRecord[] = [];
    const stop = await collect(bus, received);
    await publisher.drain();
    expect(signals).toEqual([true, false]);
    // 60 changes and the token's first book.
    expect(publisher.published).toBe(61);
    await stop();
    await bus.close();
  });
});

describe('trades seen (SeenTrades)', () => {
  it('tells a new trade key, the same content again, and other content under a known key apart', () => {
    const seen = new SeenTrades(10);
    expect(seen.admit('t1 f1', 'price 5')).toBe('new');
    expect(seen.admit('t1 f1', 'price 5')).toBe('duplicate');
    expect(seen.admit('t1 f1', 'price 6')).toBe('conflict');
    expect(seen.admit('t1 f1', 'price 6')).toBe('duplicate');
    expect(seen.admit('t1 f2', 'price 5')).toBe('new');
    // The separator keeps key and content apart: this is another key, not the same pair.
    expect(seen.admit('t1 f', '1price 5')).toBe('new');
  });

  it('forgets the oldest keys first once full, and never one of the last `capacity` keys', () => {
    const seen = new SeenTrades(100);
    for (let i = 0; i < 300; i++) expect(seen.admit(`t${i}`, 'c')).toBe('new');
    // The last 100 keys and their contents are remembered; a key's content outlives the key (its
    // ring holds twice as many), never the other way round. The oldest are forgotten.
    for (let i = 200; i < 300; i++) expect(seen.admit(`t${i}`, 'c')).toBe('duplicate');
    for (let i = 200; i < 300; i++) expect(seen.admit(`t${i}`, 'other')).toBe('conflict');
    for (let i = 0; i < 50; i++) expect(seen.admit(`t${i}`, 'c')).toBe('new');
  });
});
