import type { InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';

/**
 * A warehouse filled as a few hours of a seeded venue would fill it: a catalogue of events,
 * markets and outcomes in three categories; quotes, trades and books following a random walk;
 * status events (halt, resume, proposal, resolution); an account's orders, fills, positions,
 * portfolio, PnL, rebates and LP incentives; and the pipeline's own bookkeeping with a few gaps
 * and dead letters. Until the main job writes real runs, the dashboards are tested on this.
 */

const MINUTE = 60_000;
const STEP = 15_000;

/** Mulberry32: small, seeded, good enough for plausible market noise. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SeedOptions {
  /** Last instant with data; the seeded history ends here. */
  end: Date;
  hours?: number;
  seed?: number;
}

interface Market {
  marketId: string;
  conditionId: string;
  eventId: string;
  question: string;
  tokens: [string, string];
}

const CATALOGUE = [
  {
    category: ['politics', 'Politics'],
    title: 'Senate control 2026',
    questions: ['Will party A win the senate?', 'Will turnout exceed 60%?'],
  },
  {
    category: ['sports', 'Sports'],
    title: 'Cup final',
    questions: [
      'Will the home team win the cup final?',
      'Will the final go to penalties?',
      'Over 2.5 goals in the final?',
    ],
  },
  {
    category: ['crypto', 'Crypto'],
    title: 'BTC end of day',
    questions: ['BTC above 100k at close?', 'ETH above 5k at close?'],
  },
  { category: ['crypto', 'Crypto'], title: 'Stablecoin supply', questions: ['Stablecoin supply above 300bn?'] },
] as const;

export async function fillDashboardWarehouse(warehouse: Warehouse, options: SeedOptions): Promise<void> {
  const rand = random(options.seed ?? 7);
  const end = Math.floor(options.end.getTime() / MINUTE) * MINUTE;
  const start = end - (options.hours ?? 6) * 60 * MINUTE;
  const iso = (ms: number) => new Date(ms).toISOString();
  let offset = 0;
  const bus = (topic: string, at: number) => ({
    _topic: topic,
    _partition: 0,
    _offset: offset++,
    _received_at: iso(at + 40),
  });
  const sync = (job: string, at: number) => ({
    ...bus(`tapehouse.sync.${job}`, at),
    _sync_job: job,
    _sync_run: `run-${job}`,
    _sync_page: 1,
  });
  const rows = new Map<string, InsertRow[]>();
  const add = (table: string, row: InsertRow) => (rows.get(table) ?? rows.set(table, []).get(table)!).push(row);

  // Catalogue.
  const markets: Market[] = [];
  CATALOGUE.forEach((event, e) => {
    const eventId = `event-${e + 1}`;
    const marketIds = event.questions.map((_, m) => `market-${e + 1}-${m + 1}`);
    add('events', {
      event_id: eventId,
      slug: event.title.toLowerCase().replace(/\W+/g, '-'),
      title: event.title,
      event_type: 'PROPOSITION',
      state: 'ACTIVE',
      resolution_status: 'ACTIVE',
      is_accepting_orders: true,
      volume_micro: 1_000_000_000 * (4 - e),
      main_market_id: marketIds[0]!,
      primary_category_slug: event.category[0],
      primary_category_label: event.category[1],
      market_ids: marketIds,
      is_detail: true,
      observed_at: iso(start),
      ...sync('events', start),
    });
    event.questions.forEach((question, m) => {
      const market: Market = {
        marketId: marketIds[m]!,
        conditionId: `0xcond${e + 1}${m + 1}`,
        eventId,
        question,
        tokens: [`tok-${e + 1}-${m + 1}-yes`, `tok-${e + 1}-${m + 1}-no`],
      };
      markets.push(market);
      add('markets', {
        market_id: market.marketId,
        condition_id: market.conditionId,
        event_id: eventId,
        slug: market.marketId,
        question,
        state: 'ACTIVE',
        exchange: 'SERVICE',
        display_type: 'BINARY',
        is_accepting_orders: true,
        volume_micro: 500_000_000 * (5 - m),
        volume_24h_micro: 80_000_000 * (5 - m),
        token_ids: market.tokens,
        tick_size_micro: 1000,
        is_detail: true,
        observed_at: iso(start),
        ...sync('markets', start),
      });
      market.tokens.forEach((token, index) => {
        add('outcomes', {
          token_id: token,
          outcome_id: `${token}-o`,
          market_id: market.marketId,
          condition_id: market.conditionId,
          outcome_index: index,
          label: index === 0 ? 'Yes' : 'No',
          short_label: index === 0 ? 'Y' : 'N',
          observed_at: iso(start),
          ...sync('outcomes', start),
        });
      });
    });
  });

  // Market data: a mid price per market walking in ticks, both outcomes quoted around it.
  const fills: {
    token: string;
    conditionId: string;
    side: string;
    price: number;
    shares: number;
    at: number;
    maker: boolean;
  }[] = [];
  markets.forEach((market, m) => {
    let mid = 300_000 + Math.floor(rand() * 400_000);
    let sequence = 1;
    for (let at = start; at <= end; at += STEP) {
      mid = Math.min(950_000, Math.max(50_000, mid + Math.round((rand() - 0.5) * 8) * 1000));
      const half = 1000 * (1 + Math.floor(rand() * 4));
      market.tokens.forEach((token, index) => {
        const tokenMid = index === 0 ? mid : 1_000_000 - mid;
        const bid = tokenMid - half;
        const ask = tokenMid + half;
        const sizes = () => Array.from({ length: 5 }, () => (50 + Math.floor(rand() * 950)) * 1_000_000);
        add('quotes', {
          token_id: token,
          condition_id: market.conditionId,
          quoted_at: iso(at),
          sequence,
          best_bid_micro: bid,
          best_ask_micro: ask,
          best_bid_size_micro: 200_000_000,
          best_ask_size_micro: 180_000_000,
          source: 'book',
          ...bus('tapehouse.market.quotes', at),
        });
        if (at % MINUTE === 0) {
          add('book_snapshots', {
            token_id: token,
            condition_id: market.conditionId,
            snapshot_at: iso(at),
            sequence,
            source: 'ws:orderbook',
            kind: 'snapshot',
            bid_prices_micro: [0, 1, 2, 3, 4].map((level) => bid - level * 10_000),
            bid_sizes_micro: sizes(),
            ask_prices_micro: [0, 1, 2, 3, 4].map((level) => ask + level * 10_000),
            ask_sizes_micro: sizes(),
            ...bus('tapehouse.market.books', at),
          });
          add('book_changes', {
            token_id: token,
            condition_id: market.conditionId,
            side: 'BID',
            price_micro: bid,
            size_micro: 200_000_000,
            previous_size_micro: 150_000_000,
            changed_at: iso(at),
            sequence,
            update_kind: 'snapshot',
            ...bus('tapehouse.market.books', at),
          });
        }
        if (rand() < 0.45 - m * 0.03) {
          const side = rand() < 0.5 ? 'BUY' : 'SELL';
          const shares = (1 + Math.floor(rand() * 200)) * 1_000_000;
          const price = side === 'BUY' ? ask : bid;
          const executed = at + Math.floor(rand() * STEP);
          add('trades', {
            token_id: token,
            condition_id: market.conditionId,
            trade_id: `tr-${offset}`,
            side,
            price_micro: price,
            shares_micro: shares,
            executed_at: iso(executed),
            sequence,
            exchange: 'SERVICE',
            ...bus('tapehouse.market.trades', executed),
          });
          if (rand() < 0.12)
            fills.push({
              token,
              conditionId: market.conditionId,
              side,
              price,
              shares: Math.min(shares, 20_000_000),
              at: executed,
              maker: rand() < 0.5,
            });
        }
      });
      sequence += 1;
    }
  });

  // Status events: a halt and resume, a proposal, and a resolution near the end.
  const status = (market: Market, at: number, kind: string, extra: InsertRow = {}) =>
    add('market_status', {
      condition_id: market.conditionId,
      market_id: market.marketId,
      event_id: market.eventId,
      kind,
      status_at: iso(at),
      sequence: offset,
      ...extra,
      ...bus('tapehouse.market.status', at),
    });
  markets.forEach((market, m) => {
    const at = start + (m + 1) * 25 * MINUTE;
    status(market, at, 'market_halted', { reason: 'news pending' });
    status(market, at + 7 * MINUTE, 'market_resumed');
  });
  status(markets[2]!, end - 50 * MINUTE, 'outcome_proposed', { winning_token_id: markets[2]!.tokens[0] });
  status(markets[2]!, end - 20 * MINUTE, 'market_resolved', { winning_token_id: markets[2]!.tokens[0] });
  status(markets[5]!, end - 12 * MINUTE, 'market_halted', { reason: 'under review' });

  // The account: orders and fills, positions and portfolio over time, PnL, rebates, LP incentives.
  const account = 'main';
  const holdings = new Map<string, { shares: number; cost: number; conditionId: string }>();
  let cash = 5_000_000_000;
  fills.forEach((fill, i) => {
    const orderId = `ord-${i + 1}`;
    const fee = fill.maker ? 0 : Math.floor((fill.price * fill.shares) / 1_000_000 / 100);
    const notional = Math.floor((fill.price * fill.shares) / 1_000_000);
    const base = {
      account,
      order_id: orderId,
      token_id: fill.token,
      condition_id: fill.conditionId,
      exchange: 'SERVICE',
      side: fill.side,
    };
    add('order_observations', {
      ...base,
      status: 'MATCHED',
      is_terminal: true,
      type: 'LIMIT',
      price_micro: fill.price,
      original_size_micro: fill.shares,
      size_matched_micro: fill.shares,
      created_at: iso(fill.at - 2000),
      source: 'rest:orders/list',
      observed_at: iso(fill.at),
      ...sync('orders', fill.at),
    });
    add('fill_observations', {
      ...base,
      fill_id: `fill-${i + 1}`,
      trade_id: `tr-f${i}`,
      status: 'CONFIRMED',
      role: fill.maker ? 'MAKER' : 'TAKER',
      price_micro: fill.price,
      shares_micro: fill.shares,
      fee_micro: fee,
      executed_at: iso(fill.at),
      source: 'ws:fill',
      observed_at: iso(fill.at + 500),
      ...bus('tapehouse.account.fills', fill.at),
    });
    const holding = holdings.get(fill.token) ?? { shares: 0, cost: 0, conditionId: fill.conditionId };
    const sign = fill.side === 'BUY' ? 1 : -1;
    holding.shares = Math.max(0, holding.shares + sign * fill.shares);
    holding.cost = Math.max(0, holding.cost + sign * notional);
    holdings.set(fill.token, holding);
    cash -= sign * notional + fee;
  });
  for (let i = 0; i < 4; i += 1) {
    const market = markets[i]!;
    const at = end - (i + 1) * 7 * MINUTE;
    add('order_observations', {
      account,
      order_id: `open-${i + 1}`,
      status: 'PENDING',
      is_terminal: false,
      type: 'LIMIT',
      side: i % 2 ? 'SELL' : 'BUY',
      token_id: market.tokens[0],
      condition_id: market.conditionId,
      exchange: 'SERVICE',
      price_micro: 400_000 + i * 50_000,
      original_size_micro: 25_000_000,
      size_matched_micro: i * 5_000_000,
      created_at: iso(at),
      source: 'ws:order_accepted',
      observed_at: iso(at),
      ...bus('tapehouse.account.orders', at),
    });
  }
  // The account's history reaches back a day (its dashboard opens on the last 24 hours).
  const accountStart = end - 24 * 60 * MINUTE;
  for (let at = accountStart; at <= end; at += 5 * MINUTE) {
    const drift = Math.round(Math.sin((at - accountStart) / (180 * MINUTE)) * 40_000_000 + (rand() - 0.5) * 10_000_000);
    const positions = 1_200_000_000 + drift;
    add('portfolio_summaries', {
      account,
      exchange: 'SERVICE',
      as_of: iso(at),
      accounting_status: 'AVAILABLE',
      cash_balance_micro: cash,
      free_cash_micro: cash - 100_000_000,
      open_cost_basis_micro: 1_150_000_000,
      open_unrealized_pnl_micro: positions - 1_150_000_000,
      portfolio_value_micro: cash + positions,
      positions_value_micro: positions,
      source: 'sse:portfolio.sync',
      ...bus('tapehouse.portfolio.syncs', at),
    });
  }
  const asOf = end - MINUTE;
  const held = [...holdings.entries()].filter(([, holding]) => holding.shares > 0);
  const snapshotRecord = bus('tapehouse.portfolio.syncs', asOf); // one read: the snapshot and its positions share the record
  add('position_snapshots', {
    account,
    as_of: iso(asOf),
    position_count: held.length,
    source: 'sse:portfolio.sync',
    ...snapshotRecord,
  });
  for (const [index, [token, holding]] of held.entries()) {
    const price = 400_000 + Math.floor(rand() * 300_000);
    const value = Math.floor((price * holding.shares) / 1_000_000);
    add('position_observations', {
      account,
      as_of: iso(asOf),
      token_id: token,
      condition_id: holding.conditionId,
      exchange: 'SERVICE',
      accounting_status: 'AVAILABLE',
      shares_micro: holding.shares,
      available_shares_micro: holding.shares,
      avg_price_micro: Math.floor((holding.cost * 1_000_000) / holding.shares),
      current_price_micro: price,
      current_value_micro: value,
      open_cost_basis_micro: holding.cost,
      profit_loss_micro: value - holding.cost,
      source: 'sse:portfolio.sync',
      ...snapshotRecord,
      _index: index,
    });
  }
  for (let hour = 0; hour <= 24; hour += 1) {
    const bucket = accountStart + hour * 60 * MINUTE;
    add('pnl_settled', {
      account,
      bucket_at: iso(bucket),
      chain_id: 137,
      collateral_micro: cash,
      cumulative_inflow_micro: 6_000_000_000,
      cumulative_outflow_micro: 500_000_000 + hour * 20_000_000,
      lifetime_pnl_micro: -60_000_000 + hour * 4_000_000 + Math.round(rand() * 5_000_000),
      position_count: held.length,
      positions_value_micro: 1_200_000_000,
      observed_at: iso(bucket + MINUTE),
      ...sync('pnl', bucket),
    });
  }
  add('rebates', {
    account,
    lp_incentive_micro: 12_500_000,
    maker_rebate_micro: 3_250_000,
    vip_rebate_micro: 0,
    total_micro: 15_750_000,
    observed_at: iso(end - 3 * MINUTE),
    ...sync('rebates', end),
  });
  markets.slice(0, 4).forEach((market, i) => {
    add('lp_incentives', {
      account,
      epoch_date: new Date(end).toISOString().slice(0, 10),
      epoch_ends_at: iso(end + 6 * 60 * MINUTE),
      eligible: i !== 3,
      market_id: market.marketId,
      question: market.question,
      event_slug: market.eventId,
      event_title: market.eventId,
      phase: 'ACTIVE',
      pool_micro: Math.floor(1_000_000_000 / (i + 1)),
      max_spread_micro: 30_000,
      min_shares_micro: 100_000_000,
      epoch_score: 120.5 / (i + 1),
      market_total_score: 900,
      projected_payout_micro: Math.floor(((1_000_000_000 / (i + 1)) * (120.5 / (i + 1))) / 900),
      observed_at: iso(end - 2 * MINUTE),
      ...sync('lp_incentives', end),
    });
  });

  // The pipeline's bookkeeping: loader inserts, health samples, sync checkpoints, dead letters, gaps.
  const sample = (component: string, subject: string, metric: string, value: number, at: number) =>
    add('pipeline_health', { sampled_at: iso(at), component, subject, metric, value, interval_ms: 10_000 });
  // As the main job writes them: loader inserts (src/load) and pipeline_health samples (src/run/pipeline-health.ts).
  const tables = ['trades', 'quotes', 'book_snapshots', 'fills'];
  for (let at = start; at <= end; at += 10_000) {
    tables.forEach((table, t) => {
      const count = 40 + Math.floor(rand() * 120) * (4 - t);
      add('loader_offsets', {
        consumer_group: 'tapehouse-loaders',
        topic: `tapehouse.${table}`,
        partition: 0,
        target_table: table,
        min_offset: at / 1000,
        max_offset: at / 1000 + count,
        row_count: count,
        max_received_at: iso(at - 80 - Math.floor(rand() * 400)),
        dedup_token: `${table}-${at}`,
        state: 'after',
        recorded_at: iso(at),
      });
      sample('loader', table, 'rows', count, at);
    });
    sample('capture', 'market', 'frames', 900 + Math.floor(rand() * 400), at);
    sample('capture', 'account', 'frames', 5 + Math.floor(rand() * 20), at);
    sample('capture', 'portfolio', 'frames', 1 + Math.floor(rand() * 3), at);
    sample('loader', 'tapehouse.market.trades', 'lag_records', Math.floor(rand() * 300), at);
    sample('loader', 'tapehouse.market.quotes', 'lag_records', Math.floor(rand() * 900), at);
    sample('capture', 'all', 'open_gaps', at > end - 40 * MINUTE && at < end - 38 * MINUTE ? 1 : 0, at);
    sample('loader', 'all', 'dead_letters', 0, at);
    if (rand() < 0.01) sample('capture', 'market', 'reconnects', 1, at);
    if (rand() < 0.02) sample('sync', 'sync', 'http_429', 1 + Math.floor(rand() * 3), at);
  }
  const gap = (stream: string, channel: string, from: number, ms: number, reason: string, recovery: string) =>
    add('capture_gaps', {
      stream,
      channel,
      subject_kind: 'token',
      subject: markets[0]!.tokens[0],
      gap_start: iso(from),
      gap_end: iso(from + ms),
      reason,
      recovery,
      last_sequence_before: 100,
      first_sequence_after: 140,
      detail: `${reason} during seeded run`,
      ...bus('tapehouse.capture.gaps', from + ms),
    });
  gap('market', 'trades', start + 70 * MINUTE, 45_000, 'disconnect', 'none');
  gap('market', 'orderbook', start + 70 * MINUTE, 45_000, 'disconnect', 'rest_resync');
  gap('account', '', start + 150 * MINUTE, 12_000, 'heartbeat_timeout', 'rest_resync');
  gap('market', 'trades', end - 40 * MINUTE, 90_000, 'sequence_reset', 'none');
  for (let i = 0; i < 6; i += 1) {
    const at = start + (i + 1) * 55 * MINUTE;
    add('dead_letters', {
      topic: 'tapehouse.market.trades',
      partition: 0,
      offset: 10_000 + i,
      key: markets[0]!.tokens[0],
      consumer_group: 'tapehouse-loaders',
      target_table: i % 3 ? 'trades' : 'quotes',
      error_code: i % 2 ? 'schema_mismatch' : 'invalid_json',
      reason: 'price_micro: expected a decimal string',
      raw: '{"price_micro": 1.5}',
      received_at: iso(at),
      failed_at: iso(at + 200),
    });
  }
  ['crossed_book', 'locked_book', 'crossed_book', 'duplicate_price'].forEach((problem, i) => {
    const at = start + (i + 1) * 80 * MINUTE;
    add('data_quality', {
      token_id: markets[i]!.tokens[0],
      condition_id: markets[i]!.conditionId,
      problem,
      detail: `${problem} at sequence ${i}`,
      sequence: i,
      detected_at: iso(at),
      ...bus('tapehouse.market.books', at),
    });
  });
  for (const job of ['events', 'markets', 'orders', 'fills', 'positions']) {
    add('sync_checkpoints', {
      job,
      scope: job === 'events' ? '' : account,
      run_id: `run-${job}`,
      status: 'completed',
      pages: 3,
      records: 120,
      watermark: iso(end - MINUTE),
      updated_at: iso(end - 30_000),
    });
  }
  const reconciled = end - 5 * MINUTE;
  const check = (field: string, token: string, ours: number, theirs: number, statusOf: string, detail = '') =>
    add('reconciliations', {
      run_id: 'recon-1',
      reconciled_at: iso(reconciled),
      account,
      scope: token ? 'position' : 'summary',
      token_id: token,
      condition_id: '',
      field,
      ours_micro: ours,
      theirs_micro: theirs,
      difference_micro: ours - theirs,
      status: statusOf,
      detail,
      reported_at: iso(reconciled - MINUTE),
    });
  check('cash_balance_micro', '', cash, cash, 'ok');
  check('shares_micro', markets[0]!.tokens[0], 20_000_000, 20_000_000, 'ok');
  check('avg_price_micro', markets[0]!.tokens[0], 412_000, 415_000, 'different', 'fills fill-1, fill-7 give 0.412');
  check(
    'profit_loss_micro',
    markets[1]!.tokens[0],
    1_500_000,
    1_250_000,
    'unproven',
    'capture gap in fills 10:05-10:06',
  );

  // The price feeds: a price per symbol every 10 s, as capture stores them (sql/0120).
  for (let at = start, n = 0; at <= end; at += 10_000, n += 1) {
    for (const [symbol, base] of [
      ['BTC', 97_000],
      ['ETH', 3_400],
    ] as const) {
      const micro = base * 1_000_000 + Math.floor(rand() * 50_000_000);
      const price = {
        symbol,
        price_micro: micro,
        price_text: (micro / 1e6).toFixed(6),
        observed_at: iso(at),
        event_id: String(n),
        connection_id: 'c-1',
      };
      add('prices', { ...price, source: 'SERVICE', ...bus('tapehouse.prices.stream', at) });
      add('oracle_pro_prices', {
        ...price,
        price_micro: micro + 1_000,
        source: 'oracle-pro',
        ...bus('tapehouse.prices.oracle_pro', at),
      });
    }
  }

  for (const [table, tableRows] of rows) await warehouse.insertRows(table, tableRows);
}
