import type { ReceivedRecord, Json, RecordKind } from '../src/bus/record.ts';
import type { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { startLoaders, type Loaders } from '../src/load/index.ts';
import { bookChangeRecord, type BookUpdate } from '../src/records/index.ts';
import type { TopicCatalogue } from '../src/bus/topics.ts';
import type { ClickHouseClient } from '@clickhouse/client';
import { Prng } from '../src/simulator/prng.ts';

/**
 * Realistic bus records of every kind, seeded, each with the rows it must become, named by a
 * natural key per table (NATURAL_KEYS gives the same key as SQL). Shared by the loader's tests and
 * bench/load.ts. About 1 record in 200 is bad on purpose (a missing id, an impossible time, a
 * price that is no integer): it must become exactly one dead letter, found by its `bad_id`.
 */

export interface Expected {
  table: string;
  key: string;
}

export interface Generated {
  topic: string;
  record: ReceivedRecord;
  rows: Expected[];
}

/** The natural key of each table's rows, as SQL over the table's columns. */
export const NATURAL_KEYS: Readonly<Record<string, string>> = {
  trades: 'trade_id',
  book_changes: "concat(token_id, '|', toString(sequence), '|', side, '|', toString(price_micro))",
  book_snapshots: "concat(token_id, '|', toString(sequence))",
  quotes: "concat(token_id, '|', toString(sequence))",
  market_status: "concat(condition_id, '|', toString(sequence))",
  capture_gaps: 'detail',
  data_quality: 'detail',
  account_events: "concat(kind, '|', order_id, '|', fill_id)",
  orders: "concat(order_id, '|', status)",
  fill_observations: "concat(fill_id, '|', status)",
  events: 'event_id',
  markets: 'market_id',
  outcomes: 'token_id',
  position_snapshots: "concat(account, '|', toString(toUnixTimestamp64Milli(as_of)))",
  positions: "concat(toString(toUnixTimestamp64Milli(as_of)), '|', token_id)",
  portfolio_summaries: "concat(exchange, '|', toString(toUnixTimestamp64Milli(as_of)))",
  pnl_settled: 'mark_run_id',
  rebates: 'toString(total_micro)',
  activity_observations: "concat(activity_id, '|', status)",
  lp_incentives: 'market_id',
  withdrawal_assets: 'token_address',
  lookups: "concat(map, '|', lookup_key)",
  sports_section_reads: 'toString(event_count)',
  sports_sections: 'category_slug',
  categories: 'slug',
  account_batches: 'batch_hash',
  withdrawal_states: 'batch_hash',
  dead_letters: "JSONExtractString(JSONExtractRaw(raw, 'payload'), 'bad_id')",
  prices: "concat(symbol, '|', event_id)",
  oracle_pro_prices: "concat(symbol, '|', event_id)",
};

type Payload = { [key: string]: Json };

const START_MS = Date.UTC(2026, 2, 2, 9, 0, 0);
const ACCOUNT = 'acct-1';

interface Token {
  tokenId: string;
  conditionId: string;
  mid: number;
  sequence: number;
}

/** Kinds and their share of the stream: market data most, as on a real venue. */
const MIX: ReadonlyArray<[kind: RecordKind | 'bad', weight: number]> = [
  ['book_change', 560],
  ['quote', 150],
  ['trade', 120],
  ['book_snapshot', 20],
  ['market_status', 10],
  ['capture_gap', 5],
  ['data_quality', 5],
  ['account_event', 20],
  ['portfolio_sync', 5],
  ['event', 10],
  ['market', 10],
  ['order', 20],
  ['fill', 20],
  ['position', 5],
  ['portfolio_summary', 5],
  ['pnl_settled', 3],
  ['rebates', 3],
  ['activity', 10],
  ['lp_incentive', 2],
  ['withdrawal_assets', 2],
  ['bad', 5],
  ['price', 2],
  ['oracle_pro_price', 2],
  ['lookup', 5],
  ['sports_sections', 2],
  ['category', 3],
  ['account_batch', 3],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [, weight]) => sum + weight, 0);

export interface GeneratorOptions {
  /** Only these kinds (default: the whole mix). */
  kinds?: ReadonlySet<RecordKind | 'bad'>;
  /** Receive times from this clock (µs) instead of a fixed day, 3 ms apart. */
  clock?: () => bigint;
  /** Numbers ids (and book sequences) from here: generators with far apart values never share a key. */
  firstIndex?: number;
  /** Book updates per `book_change` record: 1 to this many (default 1; capture batches up to 1000). */
  bookUpdates?: number;
}

/** Market-data kinds only: natural keys that do not depend on receive times. */
export const MARKET_KINDS: ReadonlySet<RecordKind> = new Set(['trade', 'book_change', 'quote', 'book_snapshot']);

export class RecordGenerator {
  readonly #next: () => number;
  readonly #tokens: Token[];
  #n = 0;

  readonly #kinds: ReadonlySet<RecordKind | 'bad'> | undefined;
  readonly #clock: (() => bigint) | undefined;
  readonly #bookUpdates: number;

  constructor(
    seed: number,
    private readonly catalogue: TopicCatalogue,
    options: GeneratorOptions = {},
  ) {
    const random = new Prng(seed);
    this.#next = () => random.float();
    this.#kinds = options.kinds;
    this.#clock = options.clock;
    this.#bookUpdates = options.bookUpdates ?? 1;
    this.#n = options.firstIndex ?? 0;
    this.#tokens = Array.from({ length: 40 }, (_, i) => ({
      tokenId: `${(i + 1) * 7919}${'3'.repeat(70)}`.slice(0, 77),
      conditionId: `0x${(Math.floor(i / 2) + 1).toString(16).padStart(64, 'c')}`,
      mid: 100_000 + Math.floor(this.#next() * 800_000),
      sequence: this.#n,
    }));
  }

  /** The next `count` records, in publishing order. */
  take(count: number): Generated[] {
    return Array.from({ length: count }, () => this.one());
  }

  one(): Generated {
    const n = ++this.#n;
    const kind = this.#pickKind();
    const receivedAtUs = this.#clock?.() ?? BigInt(START_MS + n * 3) * 1000n + BigInt(n % 1000);
    const at = Number(receivedAtUs / 1000n);
    if (kind === 'bad') return this.#bad(n, at);
    const built = this.#build(kind, n, at, receivedAtUs);
    const record: ReceivedRecord = {
      kind,
      key: built.key,
      venueTime: built.venueTime === undefined ? new Date(at).toISOString() : built.venueTime,
      receivedAtUs,
      source: built.sync
        ? { type: 'sync', job: built.sync, page: n % 4 }
        : { type: 'stream', connection: 'fixture-1', frame: n },
      payload: built.payload,
      raw: built.rawless ? null : JSON.stringify(built.payload),
    };
    return { topic: this.catalogue.topicFor(kind), record, rows: built.rows };
  }

  #pickKind(): RecordKind | 'bad' {
    for (;;) {
      let roll = this.#next() * TOTAL_WEIGHT;
      for (const [kind, weight] of MIX) {
        roll -= weight;
        if (roll < 0) {
          if (!this.#kinds || this.#kinds.has(kind)) return kind;
          break;
        }
      }
    }
  }

  #token(): Token {
    return this.#tokens[Math.floor(this.#next() * this.#tokens.length)]!;
  }

  #build(kind: RecordKind, n: number, at: number, receivedAtUs: bigint): Built {
    const iso = new Date(at).toISOString();
    const t = this.#token();
    switch (kind) {
      case 'trade': {
        const id = `trade-${n}`;
        const payload = {
          kind: 'trade',
          trade_id: id,
          token_id: t.tokenId,
          condition_id: t.conditionId,
          side: n % 2 ? 'BUY' : 'SELL',
          price_micro: String(t.mid),
          shares_micro: String(1_000_000 + (n % 97) * 10_000),
          executed_at: iso,
        };
        return { key: t.conditionId, payload, rows: [{ table: 'trades', key: id }] };
      }
      case 'book_change': {
        // As capture publishes them: several consecutive updates of one market's tokens in one
        // record (src/records/book-change-form.ts), each its own per-token sequence and levels.
        // The first update draws from the generator as one-update records did (the mix of what
        // follows stays the same); the others, up to `bookUpdates`, from a generator of their own.
        const extra = new Prng(n);
        const tokens = this.#tokens.filter((o) => o.conditionId === t.conditionId);
        const updates: BookUpdate[] = [];
        const rows: Expected[] = [];
        const count = this.#bookUpdates > 1 ? 1 + Math.floor(extra.float() * this.#bookUpdates) : 1;
        for (let u = 0; u < count; u++) {
          const next = u === 0 ? this.#next : () => extra.float();
          const o = u === 0 ? t : tokens[Math.floor(next() * tokens.length)]!;
          o.sequence += 1;
          const changes = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, i) => {
            const side = i % 2 ? 'ask' : 'bid';
            const priceMicro = side === 'bid' ? o.mid - 1000 * (i + 1) : o.mid + 1000 * (i + 1);
            return {
              side,
              priceMicro,
              sizeMicro: String(next() < 0.15 ? 0 : Math.floor(next() * 5000) * 1_000_000),
            } as const;
          });
          // One receive time and frame for the record's updates: the loader's coverage reads the envelope's.
          const origin = { connectionId: 'fixture-1', frameNo: n, receivedAtUs };
          updates.push({
            tokenId: o.tokenId,
            conditionId: o.conditionId,
            sequence: BigInt(o.sequence),
            venueSequence: n,
            update: 'snapshot',
            venueTime: iso,
            origin,
            changes,
            raw: null,
          });
          for (const c of changes)
            rows.push({
              table: 'book_changes',
              key: `${o.tokenId}|${o.sequence}|${c.side.toUpperCase()}|${c.priceMicro}`,
            });
        }
        return { key: t.conditionId, payload: bookChangeRecord(updates).payload as Payload, rows, rawless: true };
      }
      case 'book_snapshot': {
        t.sequence += 1;
        const levels = (sign: number) =>
          Array.from({ length: 8 }, (_, i) => [String(t.mid + sign * 1000 * (i + 1)), String((i + 1) * 1_000_000)]);
        const payload = {
          token_id: t.tokenId,
          condition_id: t.conditionId,
          sequence: String(t.sequence),
          venue_sequence: n,
          reason: 'anchor',
          source: 'stream',
          as_of: iso,
          bids: levels(-1),
          asks: levels(1),
        };
        return {
          key: t.conditionId,
          payload,
          rows: [{ table: 'book_snapshots', key: `${t.tokenId}|${t.sequence}` }],
          rawless: true,
        };
      }
      case 'quote': {
        t.sequence += 1;
        const payload = {
          token_id: t.tokenId,
          condition_id: t.conditionId,
          sequence: t.sequence,
          best_bid_micro: String(t.mid - 1000),
          best_ask_micro: n % 50 === 0 ? null : String(t.mid + 1000),
        };
        return { key: t.conditionId, payload, rows: [{ table: 'quotes', key: `${t.tokenId}|${t.sequence}` }] };
      }
      case 'market_status': {
        const payload = {
          kind: n % 3 ? 'market_halted' : 'market_resumed',
          condition_id: t.conditionId,
          market_id: `m-${t.conditionId.slice(-6)}`,
          event_id: 'ev-1',
          sequence: n,
          reason: 'maintenance',
        };
        return { key: t.conditionId, payload, rows: [{ table: 'market_status', key: `${t.conditionId}|${n}` }] };
      }
      case 'capture_gap': {
        const scope = { all: false, channels: ['trades'], token_ids: [t.tokenId], condition_ids: [], event_ids: [] };
        const payload = {
          stream: 'market',
          reason: 'disconnected',
          detail: `gap-${n}`,
          gap_start: new Date(at - 5000).toISOString(),
          gap_end: iso,
          scope,
          recovery: 'none',
          connection_id: 'market-1',
          refused_attempts: 0,
          frames_missed: null,
        };
        return { key: 'market', payload, rows: [{ table: 'capture_gaps', key: `gap-${n}` }], rawless: true };
      }
      case 'data_quality': {
        const payload = {
          problem: 'crossed_book',
          detail: `dq-${n}`,
          stream: 'market',
          token_id: t.tokenId,
          condition_id: t.conditionId,
          frame_seq: n,
          raw_chars: 0,
          raw_truncated: false,
        };
        return { key: t.conditionId, payload, rows: [{ table: 'data_quality', key: `dq-${n}` }] };
      }
      case 'account_event':
        return this.#accountEvent(n, iso, t);
      case 'portfolio_sync': {
        const positions = { as_of: iso, positions: [this.#position(t, n)], unavailable_exchanges: [] };
        const summary = {
          summaries: [{ exchange: 'SERVICE', as_of: iso, cash_balance_micro: String(n * 1000), free_cash_micro: '-5' }],
        };
        const payload = { type: 'portfolio.sync', seq: String(n), stream_id: 'stream-1', positions, summary };
        return {
          key: ACCOUNT,
          payload,
          rows: [
            { table: 'position_snapshots', key: `${ACCOUNT}|${at}` },
            { table: 'positions', key: `${at}|${t.tokenId}` },
            { table: 'portfolio_summaries', key: `SERVICE|${at}` },
          ],
        };
      }
      case 'event': {
        const id = `event-${n}`;
        const detail = n % 2 === 0;
        const payload: Payload = {
          id,
          slug: `slug-${n}`,
          title: `Event ${n}`,
          event_type: 'PROPOSITION',
          state: 'ACTIVE',
          is_accepting_orders: true,
          start_time: iso,
          volume_micro: String(n * 1_000_000),
          primary_category: { slug: 'politics', label: 'Politics' },
          game_state: { match: { lifecycle: 'scheduled' } },
        };
        if (detail)
          Object.assign(payload, {
            markets: [{ id: `market-${n}-a` }],
            categories: [{ slug: 'politics', label: 'Politics' }],
          });
        else payload.market_count = 2;
        return { key: id, payload, rows: [{ table: 'events', key: id }], sync: 'catalogue' };
      }
      case 'market': {
        const id = `market-${n}`;
        const outcomes = ['yes', 'no'].map((label, index) => ({
          id: `${id}-${label}`,
          index,
          label,
          token_id: `${id}-token-${label}`,
          price_micro: String(400_000 + index * 200_000),
        }));
        const payload = {
          id,
          condition_id: `0x${n.toString(16).padStart(64, 'd')}`,
          event_id: 'ev-1',
          question: `Will ${n} happen?`,
          state: 'ACTIVE',
          exchange: 'SERVICE',
          is_accepting_orders: true,
          volume_micro: '123000000',
          liquidity: '42.5',
          tick_size_micro: '1000',
          engine_config: { tick_size: 1, price_scale: 1000 },
          resolution: { reference_value: { a: 1 } },
          outcomes,
        };
        const rows = [{ table: 'markets', key: id }, ...outcomes.map((o) => ({ table: 'outcomes', key: o.token_id }))];
        return { key: payload.condition_id, payload, rows, sync: 'catalogue' };
      }
      case 'order': {
        const id = `order-${n}`;
        const payload = this.#order(id, t, iso);
        return { key: ACCOUNT, payload, rows: [{ table: 'orders', key: `${id}|LIVE` }], sync: 'orders' };
      }
      case 'fill': {
        // Every fourth fill is an earlier fill seen again in a later state, as the sync jobs do.
        const id = n % 4 === 0 && n > 8 ? `fill-${n - 4}` : `fill-${n}`;
        const status = id === `fill-${n}` ? 'MATCHED' : 'CONFIRMED';
        const payload = {
          trade_id: `t-${id}`,
          fill_id: id,
          order_id: `order-${n}`,
          token_id: t.tokenId,
          status,
          exchange: 'SERVICE',
          side: 'BUY',
          role: 'MAKER',
          price_micro: String(t.mid),
          shares_micro: '2000000',
          fee_micro: '10',
          executed_at: iso,
        };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'fill_observations', key: `${id}|${status}` }],
          sync: 'portfolio_trades',
        };
      }
      case 'position': {
        const payload = { as_of: iso, positions: [this.#position(t, n)], unavailable_exchanges: [] };
        return {
          key: ACCOUNT,
          payload,
          rows: [
            { table: 'position_snapshots', key: `${ACCOUNT}|${at}` },
            { table: 'positions', key: `${at}|${t.tokenId}` },
          ],
          sync: 'positions',
        };
      }
      case 'portfolio_summary': {
        const payload = {
          exchange: `EX${n}`,
          as_of: iso,
          accounting_status: 'AVAILABLE',
          cash_balance_micro: String(n),
          portfolio_value_micro: '5',
        };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'portfolio_summaries', key: `EX${n}|${at}` }],
          sync: 'portfolio_summary',
        };
      }
      case 'pnl_settled': {
        const payload = {
          bucket_at: iso,
          chain_id: 137,
          lifetime_pnl_micro: '-1500000',
          mark_run_id: `run-${n}`,
          position_count: 3,
        };
        return { key: ACCOUNT, payload, rows: [{ table: 'pnl_settled', key: `run-${n}` }], sync: 'pnl' };
      }
      case 'rebates': {
        const payload = {
          lp_incentive_micro: '1',
          maker_rebate_micro: '2',
          vip_rebate_micro: '3',
          total_micro: String(1_000_000 + n),
        };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'rebates', key: String(1_000_000 + n) }],
          sync: 'rebates',
          venueTime: null,
        };
      }
      case 'activity': {
        const payload = {
          id: `activity-${n}`,
          type: 'ORDER',
          order_id: `order-${n}`,
          token_id: t.tokenId,
          status: 'PENDING',
          fill_status: 'NONE',
          filled_shares_micro: '0',
          created_at: iso,
        };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'activity_observations', key: `activity-${n}|PENDING` }],
          sync: 'activities',
        };
      }
      case 'lp_incentive': {
        const markets = [1, 2].map((i) => ({
          market_id: `lp-${n}-${i}`,
          question: 'q',
          phase: 'ACTIVE',
          pool_micro: '100',
          epoch_score: 0.25,
        }));
        const payload = { eligible: true, epoch_date: '2026-03-02', epoch_ends_at: iso, markets };
        return {
          key: ACCOUNT,
          payload,
          rows: markets.map((m) => ({ table: 'lp_incentives', key: m.market_id })),
          sync: 'lp_incentives',
        };
      }
      case 'withdrawal_assets': {
        const payload = {
          note: 'n',
          wallet_address: '0xabc',
          supported_assets: [
            {
              address_type: 'EVM',
              chain_id: 137,
              chain_name: 'Polygon',
              token: { address: `0xtoken${n}`, decimals: 6, symbol: 'USDC' },
            },
          ],
        };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'withdrawal_assets', key: `0xtoken${n}` }],
          sync: 'withdrawal_assets',
        };
      }
      case 'price':
      case 'oracle_pro_price': {
        // As capture publishes a price event: as sent, plus the price in micro-units and the SSE id.
        const symbol = n % 2 ? 'BTC' : 'ETH';
        const payload = {
          type: 'price',
          symbol,
          price: `${97_000 + (n % 100)}.25`,
          price_micro: String((97_000 + (n % 100)) * 1_000_000 + 250_000),
          price_text: `${97_000 + (n % 100)}.25`,
          observed_at: iso,
          source: 'SERVICE',
          event_id: String(n),
        };
        return {
          key: symbol,
          payload,
          rows: [{ table: kind === 'price' ? 'prices' : 'oracle_pro_prices', key: `${symbol}|${n}` }],
        };
      }
      case 'lookup': {
        const map = n % 2 ? 'markets' : 'events';
        const entry =
          map === 'markets'
            ? {
                market_id: `market-${n}`,
                market_title: 'Will it?',
                outcome_name: 'Yes',
                display: { market: { any: n } },
              }
            : { event_title: `Event ${n}` };
        const payload = { list: 'activities', map, key: `${map}-key-${n}`, entry };
        return {
          key: ACCOUNT,
          payload,
          rows: [{ table: 'lookups', key: `${map}|${map}-key-${n}` }],
          sync: 'activities',
        };
      }
      case 'sports_sections': {
        // A read's event count is its number: the reads' natural key.
        const payload = {
          sections: [
            {
              category: { slug: `league-${n}`, label: 'League' },
              event_ids: Array.from({ length: n }, (_, i) => `event-${n}-${i}`),
            },
          ],
        };
        return {
          key: 'sports_live',
          payload,
          rows: [
            { table: 'sports_section_reads', key: String(n) },
            { table: 'sports_sections', key: `league-${n}` },
          ],
          sync: 'sports_sections',
        };
      }
      case 'category': {
        const slug = `category-${n}`;
        const payload = {
          slug,
          answer: {
            slug,
            label: 'C',
            root_slug: 'sports',
            path: [
              { slug: 'sports', label: 'Sports' },
              { slug, label: 'C' },
            ],
            children: [],
          },
        };
        return { key: slug, payload, rows: [{ table: 'categories', key: slug }], sync: 'categories' };
      }
      case 'account_batch': {
        const hash = `0xbatch${n}`;
        const withdrawal =
          n % 2
            ? {
                state: 'QUEUED',
                updated_at: iso,
                source: { chain_id: 137, status: 'QUEUED' },
                destination: { chain_id: 137, status: 'WAITING', path: 'SPOKE_POOL' },
              }
            : undefined;
        const payload = {
          batch_hash: hash,
          seq: n,
          status: 'PENDING',
          created_at: iso,
          ops: [{ kind: withdrawal ? 'WITHDRAW' : 'SPLIT', shares_micro: 10_000 }],
          ...(withdrawal ? { withdrawal } : {}),
        };
        const rows = [
          { table: 'account_batches', key: hash },
          ...(withdrawal ? [{ table: 'withdrawal_states', key: hash }] : []),
        ];
        return { key: ACCOUNT, payload, rows, sync: 'account_batches' };
      }
    }
  }

  #accountEvent(n: number, iso: string, t: Token): Built {
    if (n % 2 === 0) {
      const order = this.#order(`ws-order-${n}`, t, iso);
      const payload = { kind: 'order_cancelled', reason: 'USER', order: { ...order, status: 'CANCELLED' } };
      return {
        key: ACCOUNT,
        payload,
        rows: [
          { table: 'account_events', key: `order_cancelled|ws-order-${n}|` },
          { table: 'orders', key: `ws-order-${n}|CANCELLED` },
        ],
      };
    }
    const fill = {
      trade_id: `t-ws-${n}`,
      fill_id: `ws-fill-${n}`,
      order_id: `ws-order-${n}`,
      token_id: t.tokenId,
      status: 'MATCHED',
      side: 'SELL',
      price_micro: String(t.mid),
      shares_micro: '1000000',
      executed_at: iso,
    };
    return {
      key: ACCOUNT,
      payload: { kind: 'fill', fill },
      rows: [
        { table: 'account_events', key: `fill|ws-order-${n}|ws-fill-${n}` },
        { table: 'fill_observations', key: `ws-fill-${n}|MATCHED` },
      ],
    };
  }

  #order(id: string, t: Token, iso: string): Payload {
    return {
      internal_id: id,
      status: 'LIVE',
      type: 'LIMIT',
      side: 'BUY',
      token_id: t.tokenId,
      condition_id: t.conditionId,
      exchange: 'SERVICE',
      price_micro: String(t.mid),
      original_size_micro: '5000000',
      size_matched_micro: '0',
      created_at: iso,
    };
  }

  #position(t: Token, n: number): Payload {
    return {
      token_id: t.tokenId,
      condition_id: t.conditionId,
      exchange: 'SERVICE',
      shares_micro: String(n * 1000),
      profit_loss_micro: '-20',
      profit_loss_percent: -1.5,
      mergeable: false,
    };
  }

  /** A record that cannot be stored; it must become exactly one dead letter. */
  #bad(n: number, at: number): Generated {
    const t = this.#token();
    const badId = `bad-${n}`;
    const flavour = n % 3;
    const kind: RecordKind = flavour === 0 ? 'trade' : flavour === 1 ? 'market_status' : 'book_change';
    const payload: Payload =
      flavour === 0
        ? { bad_id: badId, trade_id: badId, side: 'BUY', price_micro: '1', shares_micro: '1' } // no token_id
        : flavour === 1
          ? { bad_id: badId, kind: 'market_halted', condition_id: t.conditionId, status_at: 'yesterday' } // no time
          : { bad_id: badId, token_id: t.tokenId, sequence: '1', bids: [['12.5', '1']], asks: [] }; // no integer
    const record: ReceivedRecord = {
      kind,
      key: t.conditionId,
      venueTime: new Date(at).toISOString(),
      receivedAtUs: BigInt(at) * 1000n,
      source: { type: 'stream', connection: 'fixture-1', frame: n },
      payload,
      raw: JSON.stringify(payload),
    };
    return { topic: this.catalogue.topicFor(kind), record, rows: [{ table: 'dead_letters', key: badId }] };
  }
}

interface Built {
  key: string;
  payload: Payload;
  rows: Expected[];
  /** The sync job that published it (stream data otherwise). */
  sync?: string;
  /** Published without its raw frame (capture derives book changes). */
  rawless?: boolean;
  venueTime?: string | null;
}

/** Expected natural keys per table, from generated records. */
export function expectedKeys(generated: readonly Generated[]): Map<string, string[]> {
  const byTable = new Map<string, string[]>();
  for (const { rows } of generated) {
    for (const { table, key } of rows) {
      const list = byTable.get(table);
      if (list) list.push(key);
      else byTable.set(table, [key]);
    }
  }
  return byTable;
}

export interface TableCheck {
  table: string;
  expected: number;
  stored: number;
  distinct: number;
  missing: string[];
  unexpected: string[];
}

/**
 * Compares each table's natural keys with what was published: count, duplicates, missing, extra.
 * `topicPrefix` keeps to the rows loaded from that catalogue's topics (tests share a warehouse).
 */
export async function compareTables(
  client: ClickHouseClient,
  expected: Map<string, string[]>,
  topicPrefix = '',
): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  for (const [table, keys] of expected) {
    const topicColumn = table === 'dead_letters' ? 'topic' : '_topic';
    const result = await client.query({
      query: `SELECT ${NATURAL_KEYS[table]} AS k FROM tapehouse.${table} WHERE startsWith(${topicColumn}, {prefix:String})`,
      query_params: { prefix: topicPrefix },
      format: 'JSONEachRow',
    });
    const stored = (await result.json<{ k: string }>()).map((row) => row.k);
    const storedSet = new Set(stored);
    const wanted = new Set(keys);
    checks.push({
      table,
      expected: keys.length,
      stored: stored.length,
      distinct: storedSet.size,
      missing: [...wanted].filter((key) => !storedSet.has(key)).slice(0, 5),
      unexpected: [...storedSet].filter((key) => !wanted.has(key)).slice(0, 5),
    });
  }
  return checks;
}

/** Resolves once the group has committed everything on the bus (so all of it is stored). */
/** Loaders started with `options`, run until they have stored everything on the bus, then stopped. */
export async function loadAll(options: Parameters<typeof startLoaders>[0]): Promise<void> {
  const loaders = await startLoaders(options);
  await drained(loaders);
  await loaders.stop();
}

export async function drained(loaders: Loaders): Promise<void> {
  for (;;) {
    const stats = await loaders.stats();
    if (stats.lag === 0 && stats.queuedRows === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Publishes generated records one by one, in order (so each gets the same offset every time). */
export async function publishAll(bus: EmbeddedBus, records: readonly Generated[]): Promise<void> {
  for (const { topic, record } of records) await bus.publish(topic, [record]);
}
