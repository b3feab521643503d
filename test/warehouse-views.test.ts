import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import { busRecord, migratedWarehouse, rows, type TestWarehouse } from './warehouse-fixtures.ts';

// Every view and materialized view checked against values computed here, independently, from
// the raw rows: seeded random trades and quotes inserted out of order in several batches.

const MINUTE = 60_000;
const HOUR = 3_600_000;
const START = Date.UTC(2024, 4, 1, 22, 0, 0); // 22:00, so the trades cross midnight into a second day

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function inBatches<T>(items: T[], count: number): T[][] {
  const size = Math.ceil(items.length / count);
  return Array.from({ length: count }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** ClickHouse's text form of a DateTime64(3). */
function chTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

interface Trade {
  token_id: string;
  condition_id: string;
  trade_id: string;
  /** '' for a trade of one fill; else the fill of a trade that met several makers (§6.2). */
  fill_id: string;
  side: 'BUY' | 'SELL';
  price: bigint;
  shares: bigint;
  at: number;
  sequence: number;
}

interface Quote {
  token_id: string;
  at: number;
  sequence: number;
  bid: bigint | null;
  ask: bigint | null;
}

const next = random(7);
const TOKENS = [
  { token_id: 'tok-yes', condition_id: 'cond-a' },
  { token_id: 'tok-no', condition_id: 'cond-a' },
  { token_id: 'tok-orphan', condition_id: 'cond-b' }, // traded, but unknown to the catalogue
];

const trades: Trade[] = [];
TOKENS.forEach(({ token_id, condition_id }, t) => {
  let at = START;
  for (let i = 0; i < 120; i++) {
    // Several trades share a millisecond; sequence breaks the tie, unrelated to insert order.
    at += next() < 0.2 ? 0 : Math.floor(next() * 2.5 * MINUTE);
    const trade: Trade = {
      token_id,
      condition_id,
      trade_id: `${t}-${String(i).padStart(4, '0')}`,
      fill_id: '',
      side: next() < 0.5 ? 'BUY' : 'SELL',
      price: BigInt(1 + Math.floor(next() * 999_998)),
      shares: BigInt(Math.floor(next() * 5e9)) * 1000n + (i === 7 ? 9_007_199_254_740_993n : 0n),
      at,
      sequence: 1000 + i,
    };
    // One trade in ten met several makers: fills of one trade id, time and sequence, each its own price.
    if (i % 10 !== 3) trades.push(trade);
    else
      for (const f of ['f3', 'f1', 'f2'])
        trades.push({ ...trade, fill_id: `${trade.trade_id}-${f}`, price: BigInt(1 + Math.floor(next() * 999_998)) });
  }
});

const quotes: Quote[] = [];
for (let i = 0, at = START; i < 200; i++) {
  at += Math.floor(next() * 4000);
  const bid = next() < 0.15 ? null : BigInt(400_000 + Math.floor(next() * 50_000));
  const ask = next() < 0.15 ? null : BigInt(460_000 + Math.floor(next() * 50_000));
  quotes.push({ token_id: 'tok-yes', at, sequence: i, bid, ask });
}

const notional = (t: Trade) => (t.price * t.shares) / 1_000_000n;
const tieKey = (t: Trade) => (t.fill_id === '' ? t.trade_id : `${t.trade_id}/${t.fill_id}`);
const byKey = (a: Trade, b: Trade) => a.at - b.at || a.sequence - b.sequence || (tieKey(a) < tieKey(b) ? -1 : 1);
/** Trades (distinct ids) and fills (rows) of a group. */
const counts = (group: Trade[]) => ({
  trade_count: String(new Set(group.map((t) => t.trade_id)).size),
  fill_count: String(group.length),
});

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
const max = (values: bigint[]) => values.reduce((a, b) => (b > a ? b : a));
const min = (values: bigint[]) => values.reduce((a, b) => (b < a ? b : a));

function expectedCandles(intervalMs: number) {
  const groups = groupBy(
    trades,
    (t) => `${t.token_id}|${String(Math.floor(t.at / intervalMs) * intervalMs).padStart(15, '0')}`,
  );
  return [...groups.values()].map((group) => {
    const ordered = [...group].sort(byKey);
    const shares = sum(group.map((t) => t.shares));
    const value = sum(group.map(notional));
    return {
      token_id: group[0]!.token_id,
      bucket: chTime(Math.floor(group[0]!.at / intervalMs) * intervalMs),
      open_micro: String(ordered[0]!.price),
      high_micro: String(max(group.map((t) => t.price))),
      low_micro: String(min(group.map((t) => t.price))),
      close_micro: String(ordered.at(-1)!.price),
      volume_shares_micro: String(shares),
      volume_notional_micro: String(value),
      buy_shares_micro: String(sum(group.filter((t) => t.side === 'BUY').map((t) => t.shares))),
      sell_shares_micro: String(sum(group.filter((t) => t.side === 'SELL').map((t) => t.shares))),
      ...counts(group),
      vwap_micro: String(shares === 0n ? 0n : (value * 1_000_000n) / shares),
      first_trade_at: chTime(ordered[0]!.at),
      last_trade_at: chTime(ordered.at(-1)!.at),
    };
  });
}

function tradeRow(t: Trade, offset: number): InsertRow {
  return {
    token_id: t.token_id,
    condition_id: t.condition_id,
    trade_id: t.trade_id,
    fill_id: t.fill_id,
    side: t.side,
    price_micro: t.price,
    shares_micro: t.shares,
    executed_at: t.at,
    sequence: t.sequence,
    ...busRecord(offset, 'market.trades'),
  };
}

describe('materialized views and views against independently computed values', () => {
  let w: TestWarehouse;

  beforeAll(async () => {
    w = await migratedWarehouse();
    const order = shuffled(
      trades.map((t, i) => [t, i] as const),
      next,
    );
    for (const batch of inBatches(order, 6)) {
      await w.warehouse.insertRows(
        'trades',
        batch.map(([t, i]) => tradeRow(t, i)),
      );
    }
    const quoteOrder = shuffled(
      quotes.map((q, i) => [q, i] as const),
      next,
    );
    for (const batch of inBatches(quoteOrder, 4)) {
      await w.warehouse.insertRows(
        'quotes',
        batch.map(([q, i]) => ({
          token_id: q.token_id,
          quoted_at: q.at,
          sequence: q.sequence,
          best_bid_micro: q.bid,
          best_ask_micro: q.ask,
          source: 'ws:best_quote',
          ...busRecord(i, 'market.quotes'),
        })),
      );
    }
  });
  afterAll(async () => {
    await w.cleanup();
  });

  const CANDLE_COLUMNS =
    'token_id, bucket, open_micro, high_micro, low_micro, close_micro, volume_shares_micro, volume_notional_micro, ' +
    'buy_shares_micro, sell_shares_micro, trade_count, fill_count, vwap_micro, first_trade_at, last_trade_at';

  it('candles_1m: OHLCV per token and minute, independent of insert order', async () => {
    const actual = await rows(
      w.warehouse.client,
      `SELECT ${CANDLE_COLUMNS} FROM tapehouse.candles_1m ORDER BY token_id, bucket`,
    );
    expect(actual).toEqual(expectedCandles(MINUTE));
  });

  it('candles_1h: OHLCV per token and hour', async () => {
    const actual = await rows(
      w.warehouse.client,
      `SELECT ${CANDLE_COLUMNS} FROM tapehouse.candles_1h ORDER BY token_id, bucket`,
    );
    expect(actual).toEqual(expectedCandles(HOUR));
  });

  it('candles stay right after background merges collapse the states', async () => {
    await w.warehouse.client.command({ query: 'OPTIMIZE TABLE tapehouse.candles_state FINAL' });
    const actual = await rows(
      w.warehouse.client,
      `SELECT ${CANDLE_COLUMNS} FROM tapehouse.candles_1m ORDER BY token_id, bucket`,
    );
    expect(actual).toEqual(expectedCandles(MINUTE));
  });

  it('top_of_book_1m: opening/closing best bid and ask, best prices and spread statistics per minute', async () => {
    const expected = [...groupBy(quotes, (q) => String(Math.floor(q.at / MINUTE))).values()].map((group) => {
      const ordered = [...group].sort((a, b) => a.at - b.at || a.sequence - b.sequence);
      const bids = ordered.filter((q) => q.bid !== null).map((q) => q.bid!);
      const asks = ordered.filter((q) => q.ask !== null).map((q) => q.ask!);
      const spreads = ordered.filter((q) => q.bid !== null && q.ask !== null).map((q) => q.ask! - q.bid!);
      const text = (v: bigint | undefined) => (v === undefined ? null : String(v));
      return {
        bucket: chTime(Math.floor(group[0]!.at / MINUTE) * MINUTE),
        bid_open_micro: text(bids[0]),
        bid_close_micro: text(bids.at(-1)),
        ask_open_micro: text(asks[0]),
        ask_close_micro: text(asks.at(-1)),
        bid_high_micro: text(bids.length ? max(bids) : undefined),
        ask_low_micro: text(asks.length ? min(asks) : undefined),
        spread_min_micro: text(spreads.length ? min(spreads) : undefined),
        spread_max_micro: text(spreads.length ? max(spreads) : undefined),
        spread_avg_micro: text(spreads.length ? sum(spreads) / BigInt(spreads.length) : undefined),
        two_sided_quotes: String(spreads.length),
        quotes: String(group.length),
      };
    });
    const actual = await rows(
      w.warehouse.client,
      `SELECT bucket, bid_open_micro, bid_close_micro, ask_open_micro, ask_close_micro, bid_high_micro, ask_low_micro,
              spread_min_micro, spread_max_micro, spread_avg_micro, two_sided_quotes, quotes
       FROM tapehouse.top_of_book_1m WHERE token_id = 'tok-yes' ORDER BY bucket`,
    );
    expect(actual).toEqual(expected);
  });

  describe('with a catalogue', () => {
    beforeAll(async () => {
      const catalogue = (offset: number) => ({
        ...busRecord(offset, 'sync.catalogue'),
        _sync_job: 'events',
        _sync_run: 'run-1',
      });
      // The newer observation is inserted first: latest must still be the newer one.
      await w.warehouse.insertRows('events', [
        {
          event_id: 'ev-1',
          slug: 'ev-1',
          primary_category_slug: 'politics',
          primary_category_label: 'Politics',
          observed_at: START + 2 * HOUR,
          ...catalogue(2),
        },
      ]);
      await w.warehouse.insertRows('events', [
        {
          event_id: 'ev-1',
          slug: 'ev-1',
          primary_category_slug: 'sports',
          primary_category_label: 'Sports',
          observed_at: START,
          ...catalogue(1),
        },
      ]);
      await w.warehouse.insertRows('markets', [
        {
          market_id: 'mkt-a',
          condition_id: 'cond-a',
          event_id: 'ev-1',
          question: 'Will A?',
          observed_at: START,
          ...catalogue(3),
        },
      ]);
      await w.warehouse.insertRows('outcomes', [
        {
          token_id: 'tok-yes',
          market_id: 'mkt-a',
          condition_id: 'cond-a',
          outcome_index: 0,
          label: 'Yes',
          observed_at: START,
          ...catalogue(4),
        },
        {
          token_id: 'tok-no',
          market_id: 'mkt-a',
          condition_id: 'cond-a',
          outcome_index: 1,
          label: 'No',
          observed_at: START,
          ...catalogue(4),
          _index: 1,
        },
      ]);
    });

    const day = (t: Trade) => new Date(t.at).toISOString().slice(0, 10);

    it('events_latest: the newest observation per event, whatever the insert order', async () => {
      const latest = await rows(
        w.warehouse.client,
        'SELECT event_id, primary_category_slug FROM tapehouse.events_latest',
      );
      expect(latest).toEqual([{ event_id: 'ev-1', primary_category_slug: 'politics' }]);
      expect(await rows(w.warehouse.client, 'SELECT count() AS n FROM tapehouse.events')).toEqual([{ n: '2' }]); // history kept
    });

    it("volume_daily_by_market: traded volume per market and day, via the catalogue or the trades' own condition", async () => {
      const expected = [...groupBy(trades, (t) => `${day(t)}|${t.condition_id}`).values()].map((group) => ({
        day: day(group[0]!),
        condition_id: group[0]!.condition_id,
        market_id: group[0]!.condition_id === 'cond-a' ? 'mkt-a' : '',
        volume_notional_micro: String(sum(group.map(notional))),
        volume_shares_micro: String(sum(group.map((t) => t.shares))),
        ...counts(group),
      }));
      const actual = await rows(
        w.warehouse.client,
        `SELECT toString(day) AS day, condition_id, market_id, volume_notional_micro, volume_shares_micro, trade_count, fill_count
         FROM tapehouse.volume_daily_by_market ORDER BY day, condition_id`,
      );
      expect(actual).toEqual(expected);
    });

    it("volume_daily_by_category: per category and day, from the event's latest primary category", async () => {
      const category = (t: Trade) => (t.condition_id === 'cond-a' ? 'politics' : '');
      const expected = [...groupBy(trades, (t) => `${day(t)}|${category(t)}`).values()].map((group) => ({
        day: day(group[0]!),
        category_slug: category(group[0]!),
        volume_notional_micro: String(sum(group.map(notional))),
        ...counts(group),
        markets: String(new Set(group.map((t) => t.condition_id)).size),
      }));
      const actual = await rows(
        w.warehouse.client,
        `SELECT toString(day) AS day, category_slug, volume_notional_micro, trade_count, fill_count, markets
         FROM tapehouse.volume_daily_by_category ORDER BY day, category_slug`,
      );
      expect(actual).toEqual(expected);
    });
  });

  it('market_lifecycle: each status event with the one before it, the gap, and whether orders are accepted after', async () => {
    const events = [
      { kind: 'market_halted', at: START + 1000, reason: 'maintenance' },
      { kind: 'market_resumed', at: START + 61_000 },
      { kind: 'some_future_kind', at: START + 90_000 }, // unknown kinds load and show as they are
      { kind: 'outcome_proposed', at: START + 120_500 },
      { kind: 'market_resolved', at: START + 300_000, winning_token_id: 'tok-yes' },
    ];
    const inserted = shuffled(
      events.map((e, i) => [e, i] as const),
      next,
    );
    for (const [{ at, ...e }, i] of inserted) {
      await w.warehouse.insertRows('market_status', [
        { condition_id: 'cond-a', status_at: at, ...e, ...busRecord(i, 'market.status') },
      ]);
    }
    const expected = events.map((e, i) => ({
      step: String(i + 1),
      kind: e.kind,
      previous_kind: i === 0 ? '' : events[i - 1]!.kind,
      ms_since_previous: String(i === 0 ? 0 : e.at - events[i - 1]!.at),
      accepting_orders_after:
        { market_halted: 0, market_resumed: 1, market_resolved: 0 }[e.kind as 'market_halted'] ?? null,
      is_final: e.kind === 'market_resolved',
    }));
    const actual = await rows(
      w.warehouse.client,
      `SELECT step, kind, previous_kind, ms_since_previous, accepting_orders_after, is_final
       FROM tapehouse.market_lifecycle WHERE condition_id = 'cond-a' ORDER BY step`,
    );
    expect(actual).toEqual(expected);
    const summary = await rows(
      w.warehouse.client,
      `SELECT halts, resumes, proposals, last_kind, toString(resolved_at) AS resolved_at, is_resolved, winning_token_id
       FROM tapehouse.market_lifecycle_summary WHERE condition_id = 'cond-a'`,
    );
    expect(summary).toEqual([
      {
        halts: '1',
        resumes: '1',
        proposals: '1',
        last_kind: 'market_resolved',
        resolved_at: chTime(START + 300_000),
        is_resolved: true,
        winning_token_id: 'tok-yes',
      },
    ]);
  });

  it('orders_latest: a CANCELLED order later MATCHED by a late fill shows MATCHED, even when the rows arrive the other way round', async () => {
    const order = (status: string, observed: number, offset: number) => ({
      account: 'acct',
      order_id: 'ord-1',
      status,
      token_id: 'tok-yes',
      side: 'BUY',
      type: 'LIMIT',
      price_micro: 450_000n,
      original_size_micro: 10_000_000n,
      source: 'rest:orders/list',
      observed_at: observed,
      ...busRecord(offset, 'sync.orders'),
    });
    await w.warehouse.insertRows('order_observations', [order('MATCHED', START + 2000, 2)]);
    await w.warehouse.insertRows('order_observations', [order('CANCELLED', START + 1000, 1)]);
    expect(await rows(w.warehouse.client, 'SELECT order_id, status FROM tapehouse.orders_latest')).toEqual([
      { order_id: 'ord-1', status: 'MATCHED' },
    ]);
  });

  it('positions_latest: the newest usable snapshot as a whole; a position absent from it is gone', async () => {
    const snapshot = async (asOf: number, offset: number, positions: string[], unavailable: string[] = []) => {
      const record = busRecord(offset, 'portfolio');
      await w.warehouse.insertRows('position_snapshots', [
        {
          account: 'acct',
          as_of: asOf,
          position_count: positions.length,
          unavailable_exchanges: unavailable,
          source: 'sse:portfolio.sync',
          ...record,
        },
      ]);
      if (positions.length > 0) {
        await w.warehouse.insertRows(
          'position_observations',
          positions.map((token_id, i) => ({
            account: 'acct',
            as_of: asOf,
            token_id,
            shares_micro: 1_000_000n,
            source: 'sse:portfolio.sync',
            ...record,
            _index: i + 1,
          })),
        );
      }
    };
    const latest = () =>
      rows<{ token_id: string }>(
        w.warehouse.client,
        'SELECT token_id FROM tapehouse.positions_latest ORDER BY token_id',
      );
    await snapshot(START, 1, ['tok-yes', 'tok-no']);
    await snapshot(START + 1000, 2, ['tok-no']);
    await snapshot(START + 2000, 3, ['tok-yes'], ['SERVICE']); // "not usable" (§2.5)
    expect(await latest()).toEqual([{ token_id: 'tok-no' }]);
    await snapshot(START + 3000, 4, []);
    expect(await latest()).toEqual([]);
    // A read whose snapshot row is stored but not yet its positions rows (the loader inserts one
    // table after the other): the read before it stands until they are all there.
    await snapshot(START + 4000, 5, ['tok-no']);
    const record = busRecord(6, 'portfolio');
    const at = START + 5000;
    await w.warehouse.insertRows('position_snapshots', [
      {
        account: 'acct',
        as_of: at,
        position_count: 2,
        unavailable_exchanges: [],
        source: 'sse:portfolio.sync',
        ...record,
      },
    ]);
    expect(await latest()).toEqual([{ token_id: 'tok-no' }]);
    const position = (token_id: string, i: number) => ({
      account: 'acct',
      as_of: at,
      token_id,
      shares_micro: 1_000_000n,
      source: 'sse:portfolio.sync',
      ...record,
      _index: i + 1,
    });
    await w.warehouse.insertRows('position_observations', [position('tok-yes', 0)]);
    expect(await latest()).toEqual([{ token_id: 'tok-no' }]);
    await w.warehouse.insertRows('position_observations', [position('tok-no', 1)]);
    expect(await latest()).toEqual([{ token_id: 'tok-no' }, { token_id: 'tok-yes' }]);
  });

  it('loader_offsets_latest: the last recorded state per group, topic, partition and table', async () => {
    const mark = (state: string, min: number, maxOffset: number, at: string) => ({
      consumer_group: 'loaders',
      topic: 'market.trades',
      partition: 3,
      target_table: 'trades',
      min_offset: min,
      max_offset: maxOffset,
      row_count: maxOffset - min + 1,
      dedup_token: `market.trades/3/${min}-${maxOffset}`,
      state,
      recorded_at: at,
    });
    await w.warehouse.insertRows('loader_offsets', [
      mark('before', 0, 99, '2024-05-01T00:00:00.000001Z'),
      mark('after', 0, 99, '2024-05-01T00:00:00.000002Z'),
      mark('before', 100, 180, '2024-05-01T00:00:00.000003Z'),
    ]);
    expect(
      await rows(
        w.warehouse.client,
        'SELECT min_offset, max_offset, state, dedup_token FROM tapehouse.loader_offsets_latest',
      ),
    ).toEqual([{ min_offset: '100', max_offset: '180', state: 'before', dedup_token: 'market.trades/3/100-180' }]);
  });
});
