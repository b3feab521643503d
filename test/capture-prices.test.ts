import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import type { ReceivedRecord } from '../src/bus/record.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../src/bus/topics.ts';
import { decimalToMicro } from '../src/capture/prices/price-micro.ts';
import { parsePriceEvent, pricePayload } from '../src/capture/prices/price-streams.ts';
import { isFrameProblem } from '../src/capture/frames/frame.ts';
import { startLoaders } from '../src/load/index.ts';
import { createLogger } from '../src/util/log.ts';
import { SMALL_CATALOGUE, steppedRun, steppedVenue, type SteppedRun } from './capture-helpers.ts';
import { migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

/**
 * The price feeds (§4.2 "Streams", §7.5, §8.5) captured from the simulator into chDB: both feeds,
 * a dropped connection and a silence recorded as gaps, and a deployment without them.
 */

type Payload = Record<string, unknown>;
const PRICE_ONLY = { market: false, account: false, portfolio: false, prices: true, oraclePro: true };
const log = createLogger('test', 'silent');

let w: TestWarehouse;
beforeAll(async () => {
  w = await migratedWarehouse();
});
afterAll(async () => {
  await w?.cleanup();
});

interface PriceRun {
  run: SteppedRun;
  topics: TopicCatalogue;
  /** What `before` set up against the venue, let go. */
  venue: { release(): void };
  /** Stops the loaders once they have everything (they drain the embedded bus first). */
  load(): Promise<void>;
}

/** Capture of the price feeds only, against a simulator that serves them (or not), on its own topics, loaded into chDB.
 */
async function priceRun(
  prefix: string,
  served: 'on' | 'unconfigured' | 'absent',
  capture: Record<string, unknown> = {},
  streams: Record<string, unknown> = {},
  /** Done against the venue before capture starts; returns how to undo it. */
  before: (url: string) => Promise<() => void> = async () => () => undefined,
): Promise<PriceRun> {
  const topics = createTopicCatalogue(prefix);
  const bus = new EmbeddedBus({ topics: topics.topics });
  // The loaders' group first: the embedded bus keeps a record only for the groups it knows.
  const loaders = await startLoaders({
    bus,
    warehouse: w.warehouse,
    group: `${prefix}-load`,
    topics: topics.topics.map((t) => t.name),
    batch: { maxDelayMs: 20 },
    log,
  });
  const simulator = {
    seed: 11,
    rate: 1,
    venue: { catalogue: SMALL_CATALOGUE },
    streams: { priceStreams: served, ...streams },
  };
  const venue = await steppedVenue({ simulator });
  const release = await before(venue.sim.url);
  const run = await steppedRun({ bus, topics, venue, capture: { streams: PRICE_ONLY, ...capture } });
  return {
    run,
    topics,
    venue: { release },
    async load() {
      expect(await loaders.stop()).toEqual({ unstoredRecords: 0 });
      await bus.close();
    },
  };
}

/** `micro` is the venue's decimal text in micro-units, to within half a micro-unit (read by hand, not by capture's
 * reader). */
function withinHalfMicro(micro: bigint, text: string): boolean {
  const [whole, fraction = ''] = text.split('.');
  const scale = 10n ** BigInt(Math.max(6, fraction.length));
  const exact = BigInt(whole! + fraction.padEnd(Math.max(6, fraction.length), '0'));
  const diff = micro * (scale / 1_000_000n) - exact;
  return (diff < 0n ? -diff : diff) * 2n <= scale / 1_000_000n;
}

const payloads = (records: readonly ReceivedRecord[], kind: ReceivedRecord['kind']): Payload[] =>
  records.filter((r) => r.kind === kind).map((r) => r.payload as Payload);

describe('price feeds', () => {
  it('both feeds land in their tables as micro-units; a drop and a silence are gaps; capture re-connects and goes on', async () => {
    const { run, topics, load } = await priceRun('pr1', 'on');
    await run.run(5_000);
    const droppedAt = run.sim.venue.options.clock.now();
    run.sim.faults.inject({ kind: 'drop_connection', endpoint: 'prices' });
    await run.run(5_000);
    const silentAt = run.sim.venue.options.clock.now();
    run.sim.faults.inject({ kind: 'silence', endpoint: 'oracle_pro', duration_ms: 3_000 });
    await run.run(6_000);
    // What the venue may also send: a broken event (a data-quality row with its text), events with unknown fields
    // (kept).
    run.sim.faults.inject({ kind: 'malformed_frames', endpoint: 'prices', variant: 'invalid_json' });
    run.sim.faults.inject({ kind: 'malformed_frames', endpoint: 'prices', variant: 'unknown_fields', count: 2 });
    await run.run(2_000);
    await run.stop();
    expect(run.capture.stats().unavailableStreams).toEqual([]);
    await load();
    const client = w.warehouse.client;
    const where = `_topic LIKE '${topics.prefix}.%'`;

    // Both feeds, both symbols, each price its decimal text in micro-units; nothing stored twice.
    for (const [table, source] of [
      ['prices', 'SERVICE'],
      ['oracle_pro_prices', 'oracle-pro'],
    ] as const) {
      const stored = await rows<{
        symbol: string;
        price_micro: string;
        price_text: string;
        source: string;
        event_id: string;
        connection_id: string;
        observed_at: string;
      }>(
        client,
        `SELECT symbol, toString(price_micro) AS price_micro, price_text, source, event_id, connection_id, toString(observed_at) AS observed_at FROM tapehouse.${table} WHERE ${where}`,
      );
      expect(new Set(stored.map((r) => r.symbol))).toEqual(new Set(['BTC', 'ETH']));
      expect(stored.length).toBeGreaterThan(20);
      for (const r of stored) {
        expect(withinHalfMicro(BigInt(r.price_micro), r.price_text), `${r.price_micro} for ${r.price_text}`).toBe(true);
        expect(r.source).toBe(source);
      }
      // The feed's own precision is kept in price_text: the oracle writes 8 decimals, the service 2.
      expect(stored.every((r) => r.price_text.split('.')[1]!.length === (source === 'SERVICE' ? 2 : 8))).toBe(true);
      expect(new Set(stored.map((r) => `${r.connection_id}|${r.event_id}`)).size).toBe(stored.length);
      expect(stored.length).toBe(payloads(run.records, table === 'prices' ? 'price' : 'oracle_pro_price').length);
    }

    const quality = await rows<{ stream: string; problem: string; raw: string }>(
      client,
      `SELECT stream, problem, _raw AS raw FROM tapehouse.data_quality WHERE ${where}`,
    );
    expect(quality.map((q) => [q.stream, q.problem])).toEqual([['prices', 'invalid_json']]);
    expect(quality[0]!.raw.length).toBeGreaterThan(0);
    const unknown = await rows<{ n: string }>(
      client,
      `SELECT toString(count()) AS n FROM tapehouse.prices WHERE ${where} AND position(_raw, 'x_venue_hint') > 0`,
    );
    expect(Number(unknown[0]!.n)).toBeGreaterThanOrEqual(1);

    const gaps = await rows<{ stream: string; reason: string; recovery: string; start_ms: string; end_ms: string }>(
      client,
      `SELECT stream, reason, recovery, toString(toUnixTimestamp64Milli(gap_start)) AS start_ms, toString(toUnixTimestamp64Milli(gap_end)) AS end_ms FROM tapehouse.capture_gaps WHERE ${where} ORDER BY stream`,
    );
    expect(gaps.map((g) => [g.stream, g.reason, g.recovery])).toEqual([
      ['oracle_pro', 'frames_missed', 'none'],
      ['prices', 'disconnected', 'none'],
    ]);
    const [silence, drop] = gaps;
    expect(Number(drop!.start_ms)).toBeLessThanOrEqual(droppedAt);
    expect(Number(drop!.end_ms)).toBeGreaterThan(droppedAt);
    expect(Number(silence!.start_ms)).toBeLessThanOrEqual(silentAt);
    expect(Number(silence!.end_ms)).toBeGreaterThanOrEqual(silentAt + 3_000);
    // The silence swallowed about 3 s of events of 2 symbols; the gap counts them by their numbers.
    const missed = payloads(run.records, 'capture_gap').find((p) => p.stream === 'oracle_pro')!;
    expect(missed.frames_missed).toBeGreaterThanOrEqual(4);

    // Outside the gaps nothing is missing: the events of each connection are numbered without a hole,
    // and the dropped feed came back on a new connection with both symbols.
    const runs = await rows<{
      table: string;
      connection_id: string;
      n: string;
      first: string;
      last: string;
      symbols: string;
      after_ms: string;
    }>(
      client,
      `SELECT 'prices' AS table, connection_id, toString(count()) AS n, toString(min(toUInt64(event_id))) AS first, toString(max(toUInt64(event_id))) AS last, toString(uniqExact(symbol)) AS symbols, toString(toUnixTimestamp64Milli(min(observed_at))) AS after_ms
       FROM tapehouse.prices WHERE ${where} GROUP BY connection_id ORDER BY after_ms`,
    );
    expect(runs).toHaveLength(2);
    for (const r of runs) expect(Number(r.last) - Number(r.first) + 1).toBe(Number(r.n));
    expect(Number(runs[1]!.after_ms)).toBeGreaterThanOrEqual(Number(drop!.end_ms) - 1);
    expect(runs[1]!.symbols).toBe('2');
  });

  it('a deployment without price feeds: endpoint_not_offered gaps from each check to the next and to the stop, asked again later, no crash', async () => {
    const { run, topics, load } = await priceRun('pr2', 'unconfigured', { notOfferedRetryMs: 10_000 });
    await run.run(2_000);
    const checkedAt = run.sim.venue.options.clock.now();
    expect(run.capture.stats().unavailableStreams.sort()).toEqual(['oracle_pro', 'prices']);
    expect(run.capture.stats().openGaps).toBe(0);
    await run.run(10_000);
    const stoppedAt = run.sim.venue.options.clock.now();
    await run.stop();
    expect(payloads(run.records, 'price')).toEqual([]);
    await load();
    const gaps = await rows<{
      stream: string;
      reason: string;
      recovery: string;
      detail: string;
      start_ms: string;
      end_ms: string;
    }>(
      w.warehouse.client,
      `SELECT stream, reason, recovery, detail, toString(toUnixTimestamp64Milli(gap_start)) AS start_ms, toString(toUnixTimestamp64Milli(gap_end)) AS end_ms
       FROM tapehouse.capture_gaps WHERE _topic LIKE '${topics.prefix}.%' ORDER BY stream, start_ms, end_ms`,
    );
    for (const stream of ['oracle_pro', 'prices']) {
      const mine = gaps.filter((g) => g.stream === stream);
      // The first check (a gap of no length), the second one 10 s later, and the stop.
      expect(mine).toHaveLength(3);
      for (const g of mine)
        expect(g).toMatchObject({
          reason: 'endpoint_not_offered',
          recovery: 'none',
          detail: expect.stringContaining('503 price_stream_not_configured'),
        });
      expect(mine[0]!.start_ms).toBe(mine[0]!.end_ms);
      expect(Number(mine[0]!.end_ms)).toBeLessThanOrEqual(checkedAt);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.start_ms).toBe(mine[i - 1]!.end_ms);
      expect(Number(mine.at(-1)!.end_ms)).toBe(stoppedAt);
    }
  });

  it('a deployment that routes no price feed (404 route_not_found) is recorded the same way', async () => {
    const { run, topics, load } = await priceRun('pr3', 'absent');
    await run.run(1_000);
    expect(run.capture.stats().unavailableStreams.sort()).toEqual(['oracle_pro', 'prices']);
    await run.stop();
    await load();
    const gaps = await rows<{ stream: string; detail: string }>(
      w.warehouse.client,
      `SELECT stream, detail FROM tapehouse.capture_gaps WHERE _topic LIKE '${topics.prefix}.%' AND reason = 'endpoint_not_offered' ORDER BY stream, gap_start, gap_end`,
    );
    expect(gaps.map((g) => g.stream)).toEqual(['oracle_pro', 'oracle_pro', 'prices', 'prices']);
    for (const g of gaps) expect(g.detail).toContain('404 route_not_found');
  });

  it('the shared symbol budget spent (503 price_stream_capacity_exceeded) is waited out with backoff, not taken for a feed not offered', async () => {
    // Room for 4 symbols; another client holds 2 of them: one feed fits, the other waits until that client goes.
    const { run, topics, load, venue } = await priceRun('pr4', 'on', {}, { priceSymbolCapacity: 4 }, async (url) => {
      const other = new AbortController();
      const response = await fetch(`${url}/api/v1/prices/stream?symbols=BTC,ETH`, { signal: other.signal });
      expect(response.status).toBe(200);
      return () => other.abort();
    });
    await run.run(5_000);
    const stats = run.capture.stats();
    expect(stats.unavailableStreams).toEqual([]);
    expect(stats.counters.failedAttempts).toBeGreaterThan(1);
    expect(Object.keys(stats.framesByStream)).toHaveLength(1);
    venue.release();
    await run.run(35_000, 1_000);
    await run.stop();
    await load();
    expect(Object.keys(run.capture.stats().framesByStream).sort()).toEqual(['oracle_pro', 'prices']);
    const notOffered = await rows(
      w.warehouse.client,
      `SELECT * FROM tapehouse.capture_gaps WHERE _topic LIKE '${topics.prefix}.%' AND reason = 'endpoint_not_offered'`,
    );
    expect(notOffered).toEqual([]);
  });
});

describe('price events, read', () => {
  const read = (data: Payload, id?: string) => {
    const parsed = parsePriceEvent(JSON.stringify(data), id);
    if (isFrameProblem(parsed)) throw new Error(parsed.detail);
    return pricePayload(parsed, id);
  };

  it('a decimal price becomes micro-units, half to even past six decimals; the text is kept; the SSE id numbers the event', () => {
    expect(
      read({ type: 'price', symbol: 'BTC', price: '97012.45', observed_at: '2026-01-01T00:00:00.000Z' }, '7'),
    ).toMatchObject({
      symbol: 'BTC',
      price_micro: '97012450000',
      price_text: '97012.45',
      event_id: '7',
      observed_at: '2026-01-01T00:00:00.000Z',
    });
    expect(parsePriceEvent('{"type":"price","symbol":"BTC","price":"1"}', '41')).toMatchObject({ seq: 41 });
    expect(decimalToMicro('0.0000005')).toBe('0');
    expect(decimalToMicro('0.0000015')).toBe('2');
    expect(decimalToMicro('0.00000150001')).toBe('2');
    expect(decimalToMicro('3400.1234564')).toBe('3400123456');
    expect(read({ type: 'price', symbol: 'ETH', price: 3400.5 })).toMatchObject({
      price_micro: '3400500000',
      price_text: '3400.5',
    });
    expect(read({ type: 'price', symbol: 'ETH', price_micro: '3400500000', x_new: 1 })).toMatchObject({
      price_micro: '3400500000',
      x_new: 1,
    });
  });

  it('an event without a symbol or a price, or with a price that is no decimal, is named (a data-quality record), not stored as a price', () => {
    expect(read({ type: 'price', price: '1.5' })).toMatch(/symbol/);
    expect(read({ type: 'price', symbol: 'BTC' })).toMatch(/needs a price/);
    expect(read({ type: 'price', symbol: 'BTC', price: '1e5' })).toMatch(/not a decimal/);
    expect(read({ type: 'price', symbol: 'BTC', price: '99999999999999999' })).toMatch(/within Int64/);
  });
});
