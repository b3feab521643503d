import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { TokenBooks } from '../src/capture/books/token-books.ts';
import { newCounters } from '../src/capture/frames/counters.ts';
import { RecordPublisher } from '../src/capture/publisher.ts';
import type { Frame } from '../src/streams/types.ts';
import { ManualClock } from '../src/util/clock.ts';
import { createLogger } from '../src/util/log.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import { bookChangeRecord, readBookUpdates, type BookUpdate } from '../src/records/index.ts';
import { marketConnection } from './capture-helpers.ts';
import { loadAll } from './load-fixtures.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

// The venue's order, kept (issue 35): trades of one token in one millisecond, published in an
// order of frames that is not their trade ids' order, go through capture, the bus and the
// loaders into chDB. Every stored trade keeps its frame's envelope `seq` and capture's number of
// the connection; a candle's open and close are the first and last trade in (time, connection,
// frame) order, not in trade-id order.

const log = createLogger('frame-order.test', 'silent');
const PREFIX = 'frameorder';
const AT = '2026-03-02T09:00:00.250Z';
const AT_US = BigInt(Date.parse(AT)) * 1000n;

interface SentTrade {
  connectionNo: number;
  seq: number;
  tradeId: string;
  price: number;
}

// Two connections, the later one numbered higher; on each, trade ids run against the frames' order.
const SENT: SentTrade[] = [
  { connectionNo: 1_000, seq: 41, tradeId: 'T-9', price: 510_000 },
  { connectionNo: 1_000, seq: 42, tradeId: 'T-5', price: 470_000 },
  { connectionNo: 1_000, seq: 43, tradeId: 'T-7', price: 530_000 },
  { connectionNo: 1_000, seq: 44, tradeId: 'T-3', price: 450_000 },
  { connectionNo: 2_000, seq: 2, tradeId: 'T-2', price: 520_000 },
  { connectionNo: 2_000, seq: 3, tradeId: 'T-1', price: 490_000 },
];

// Other market frames, after the trades on the later connection: each row they make keeps its frame's seq.
const LATER = 2_000;
interface OtherFrame {
  table: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
}
/** A full book of one bid and one ask level. */
const book = (seq: number, sequence: number, bid: string, bidShares: string): OtherFrame => ({
  table: 'book_changes',
  seq,
  type: 'orderbook',
  data: {
    kind: 'snapshot',
    sequence,
    bids: [{ price_micro: bid, shares_micro: bidShares }],
    asks: [{ price_micro: '460000', shares_micro: '1000000' }],
  },
});
const OTHER_FRAMES: readonly OtherFrame[] = [
  book(4, 10, '440000', '1000000'),
  book(5, 11, '450000', '2000000'),
  {
    table: 'quotes',
    seq: 6,
    type: 'best_quote',
    data: { kind: 'best_quote', sequence: 11, best_bid_micro: '450000', best_ask_micro: '460000' },
  },
  { table: 'market_status', seq: 7, type: 'market_status', data: { kind: 'market_halted', event_id: 'ev-1' } },
];

function frame(connectionNo: number, frameNo: number, type: string, seq: number, data: Record<string, unknown>): Frame {
  return {
    connectionId: `conn-${connectionNo}`,
    connectionNo,
    frameNo,
    receivedAtUs: AT_US + BigInt(frameNo),
    raw: JSON.stringify({ type, seq, ts: AT, data: { token_id: 'tok-1', condition_id: 'cond-1', ...data } }),
  };
}

function tradeFrame(t: SentTrade, frameNo: number): Frame {
  return frame(t.connectionNo, frameNo, 'trades', t.seq, {
    trade_id: t.tradeId,
    side: 'BUY',
    price_micro: String(t.price),
    shares_micro: '1000000',
    executed_at: AT,
  });
}

let w: TestWarehouse;

beforeAll(async () => {
  w = await migratedWarehouse();
  const catalogue = createTopicCatalogue(PREFIX);
  const bus = new EmbeddedBus({ topics: catalogue.topics, capacity: { records: 10_000, bytes: 64 * 1024 * 1024 } });
  const clock = new ManualClock();
  const publisher = new RecordPublisher({ bus, topics: catalogue, clock, log });
  // Within a connection frames arrive in their numbers' order (one socket); the later connection's
  // arrive first, so neither the bus order nor the trade ids say the venue's order.
  const received = [
    ...SENT.map((t, i) => ({ connectionNo: t.connectionNo, frame: tradeFrame(t, i) })),
    ...OTHER_FRAMES.map((f, i) => ({
      connectionNo: LATER,
      frame: frame(LATER, SENT.length + i, f.type, f.seq, f.data),
    })),
  ];
  for (const no of [...new Set(SENT.map((t) => t.connectionNo))].reverse()) {
    const c = marketConnection(
      (records) => publisher.push(records),
      newCounters(),
      clock,
      new TokenBooks({ sequenceBase: 0n }),
    );
    for (const r of received.filter((r) => r.connectionNo === no)) c.receive(r.frame);
  }
  await publisher.drain();
  await loadAll({
    bus,
    warehouse: w.warehouse,
    group: 'frame-order',
    topics: catalogue.topics.map((t) => t.name),
    batch: { maxDelayMs: 20 },
    log,
  });
}, 120_000);

afterAll(async () => {
  await w?.cleanup();
});

/** The trades in the venue's order: by connection number, then frame number (one millisecond here). */
const inVenueOrder = [...SENT].sort((a, b) => a.connectionNo - b.connectionNo || a.seq - b.seq);

describe("the venue's order of frames, kept", () => {
  it('every stored trade carries its frame envelope seq and its connection number', async () => {
    const stored = await rows<{ trade_id: string; frame_conn: string; frame_seq: string }>(
      w.warehouse.client,
      'SELECT trade_id, toString(frame_conn) AS frame_conn, toString(frame_seq) AS frame_seq FROM tapehouse.trades ORDER BY trade_id',
    );
    expect(stored).toEqual(
      [...SENT]
        .sort((a, b) => a.tradeId.localeCompare(b.tradeId))
        .map((t) => ({ trade_id: t.tradeId, frame_conn: String(t.connectionNo), frame_seq: String(t.seq) })),
    );
  });

  it("a candle opens and closes on the first and last trade of the millisecond in the venue's order, not by trade id", async () => {
    const byTradeId = [...SENT].sort((a, b) => a.tradeId.localeCompare(b.tradeId));
    // The case holds something: the trade-id order would give another open and another close.
    expect(byTradeId[0]!.price).not.toBe(inVenueOrder[0]!.price);
    expect(byTradeId.at(-1)!.price).not.toBe(inVenueOrder.at(-1)!.price);
    for (const view of ['candles_1m', 'candles_1h']) {
      const [candle] = await rows<{ open_micro: string; close_micro: string; fill_count: string }>(
        w.warehouse.client,
        `SELECT toString(open_micro) AS open_micro, toString(close_micro) AS close_micro, toString(fill_count) AS fill_count
         FROM tapehouse.${view} WHERE token_id = 'tok-1'`,
      );
      expect(candle).toEqual({
        open_micro: String(inVenueOrder[0]!.price),
        close_micro: String(inVenueOrder.at(-1)!.price),
        fill_count: String(SENT.length),
      });
    }
  });

  it('candles keep that order once background merges collapse their states', async () => {
    await w.warehouse.client.command({ query: 'OPTIMIZE TABLE tapehouse.candles_state FINAL' });
    const [candle] = await rows<{ open_micro: string; close_micro: string }>(
      w.warehouse.client,
      "SELECT toString(open_micro) AS open_micro, toString(close_micro) AS close_micro FROM tapehouse.candles_1m WHERE token_id = 'tok-1'",
    );
    expect(candle).toEqual({
      open_micro: String(inVenueOrder[0]!.price),
      close_micro: String(inVenueOrder.at(-1)!.price),
    });
  });

  it("the rows of book, quote and status frames carry their frame's seq and connection number", async () => {
    for (const table of new Set(OTHER_FRAMES.map((f) => f.table))) {
      const stored = await rows<{ frame_conn: string; frame_seq: string }>(
        w.warehouse.client,
        `SELECT DISTINCT toString(frame_conn) AS frame_conn, toString(frame_seq) AS frame_seq FROM tapehouse.${table} ORDER BY frame_seq`,
      );
      expect(stored, table).toEqual(
        OTHER_FRAMES.filter((f) => f.table === table).map((f) => ({
          frame_conn: String(LATER),
          frame_seq: String(f.seq),
        })),
      );
    }
    // The ladder snapshot capture writes from the stream stands after one of the book frames.
    const snapshots = await rows<{ frame_conn: string; frame_seq: string }>(
      w.warehouse.client,
      'SELECT toString(frame_conn) AS frame_conn, toString(frame_seq) AS frame_seq FROM tapehouse.book_snapshots',
    );
    expect(snapshots.length).toBeGreaterThan(0);
    const bookSeqs = OTHER_FRAMES.filter((f) => f.type === 'orderbook').map((f) => String(f.seq));
    for (const s of snapshots) {
      expect(s.frame_conn).toBe(String(LATER));
      expect(bookSeqs).toContain(s.frame_seq);
    }
  });
});

describe('a book_change record of several updates', () => {
  it("keeps each update's frame seq (null for a REST re-seed), and its rows carry it", () => {
    const update = (seq: number | null, update: BookUpdate['update'], price: number): BookUpdate => ({
      tokenId: 'tok-1',
      conditionId: 'cond-1',
      sequence: BigInt(100 + price),
      venueSequence: null,
      update,
      venueTime: AT,
      origin: { connectionId: 'c', connectionNo: 7, frameNo: price, receivedAtUs: AT_US, frameSeq: seq },
      changes: [{ side: 'bid', priceMicro: 400_000 + price, sizeMicro: '1000000' }],
      raw: null,
    });
    const updates = [
      update(31, 'snapshot', 1),
      update(32, 'delta', 2),
      update(32, 'reseed', 3),
      update(35, 'delta', 4),
    ];
    const record = bookChangeRecord(updates);
    const expected = updates.map((u) => (u.update === 'reseed' ? null : u.origin.frameSeq));
    expect(readBookUpdates(record).map((u) => u.frameSeq)).toEqual(expected);
    const mapped = mapDelivery({ offset: 1n, ok: true, record }, { topic: 't', partition: 0, group: 'g' });
    expect(mapped.map((m) => [m.table, m.row.frame_conn, m.row.frame_seq])).toEqual(
      expected.map((seq) => ['book_changes', 7, seq ?? 0]),
    );
    // A record from before (no `q`) reads as frames without a seq.
    const { q: _q, ...older } = record.payload;
    expect(readBookUpdates({ ...record, payload: older }).map((u) => u.frameSeq)).toEqual(updates.map(() => null));
  });
});
