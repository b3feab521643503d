import { Availability } from '../src/api/availability.ts';
import { VenueClient } from '../src/api/client.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter } from '../src/api/rate-limit/limiter.ts';
import { READ_TIERS } from '../src/api/rate-limit/account-bucket.ts';
import type { Activity, Fill, Order, Position, SettledPnl, Summary } from '../src/api/schemas/index.ts';
import type { Account } from '../src/simulator/accounts/account.ts';
import type { AccountEvent, MarketStatusEvent } from '../src/simulator/events.ts';
import type { SimulatorHandle } from '../src/simulator/index.ts';
import { accountFrames, statusRecord } from '../src/simulator/streams/wire.ts';
import type { InsertRow } from '../src/warehouse/insert/row-encoder.ts';
import type { Warehouse } from '../src/warehouse/warehouse.ts';
import { Secret } from '../src/util/secret.ts';

/**
 * Builds, from a simulator run, the rows the warehouse would hold for an account — the way the
 * sync jobs read them (the typed client of src/api) and the account and market streams carry them
 * — until the whole pipeline can fill a warehouse end to end. Each row carries bus provenance like
 * a loaded one: REST lists in their listing order (newest first), stream frames in venue order.
 */

type Row = Record<string, unknown>;

/** Rows per table, to insert with `insertRows`. */
export class WarehouseRows {
  readonly tables = new Map<string, Row[]>();
  #offset = 0;

  add(table: string, row: Row, topic: string, raw: unknown = ''): void {
    const provenance = {
      _topic: topic,
      _partition: 0,
      _offset: this.#offset++,
      _received_at: BigInt(Date.now()) * 1000n,
      _raw: typeof raw === 'string' ? raw : json(raw),
    };
    this.#rows(table).push({ ...row, ...provenance });
  }

  #rows(table: string): Row[] {
    let rows = this.tables.get(table);
    if (!rows) this.tables.set(table, (rows = []));
    return rows;
  }

  /** A row sharing the provenance of the last row of `parent` (one record mapped to several rows). */
  addChild(table: string, row: Row, parent: string, index: number): void {
    const { _topic, _partition, _offset, _received_at } = this.tables.get(parent)!.at(-1)!;
    this.#rows(table).push({ ...row, _topic, _partition, _offset, _received_at, _index: index, _raw: '' });
  }

  async insertInto(warehouse: Pick<Warehouse, 'insertRows'>): Promise<void> {
    for (const [table, rows] of this.tables) await warehouse.insertRows(table, rows as InsertRow[]);
  }
}

function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

const ms = (iso: string | undefined, fallback: number): number => (iso === undefined ? fallback : Date.parse(iso));

/** The items of a list as received (raw JSON), by the list's key. */
function rawItems(raw: unknown, key: string): unknown[] {
  const items = (raw as Record<string, unknown> | null)?.[key];
  return Array.isArray(items) ? items : [];
}

/** A read-only client of one account, as a sync job holds it (pacing of the higher tier: the simulator's limits are
 * off). */
export function accountClient(sim: SimulatorHandle, token: string): VenueClient {
  return new VenueClient({
    baseUrl: sim.url,
    token: new Secret(token),
    limiter: new RateLimiter({ read: READ_TIERS.higher, ipLimits: new IpLimits() }),
    availability: new Availability(),
  });
}

/** The settled-PnL bucket the venue reports now, as a pnl_settled row. */
export async function readPnl(rows: WarehouseRows, client: VenueClient, label: string): Promise<void> {
  const { value: p, raw } = await client.portfolio.pnl();
  rows.add('pnl_settled', pnlRow(p, label), 'tapehouse.sync.pnl', raw);
}

function pnlRow(p: SettledPnl, account: string): Row {
  return {
    account,
    bucket_at: ms(p.bucket_at, 0),
    chain_id: p.chain_id ?? 0,
    collateral_micro: p.collateral_micro ?? 0n,
    cumulative_inflow_micro: p.cumulative_inflow_micro ?? 0n,
    cumulative_outflow_micro: p.cumulative_outflow_micro ?? 0n,
    lifetime_pnl_micro: p.lifetime_pnl_micro ?? 0n,
    mark_captured_at: p.mark_captured_at === undefined ? null : ms(p.mark_captured_at, 0),
    mark_run_id: p.mark_run_id ?? '',
    position_count: p.position_count ?? 0,
    positions_value_micro: p.positions_value_micro ?? 0n,
    observed_at: ms(p.mark_captured_at ?? p.bucket_at, 0),
  };
}

/** Everything an account's sync jobs read at the end: fills, activities, orders, positions with the summary, rebates.
 */
export async function readAccount(
  rows: WarehouseRows,
  client: VenueClient,
  label: string,
  nowMs: number,
): Promise<void> {
  for await (const page of client.portfolio.tradePages({ limit: 500 })) {
    const observed = ms(page.value.as_of, nowMs);
    page.value.trades.forEach((fill, i) =>
      rows.add(
        'fill_observations',
        fillRow(fill, label, observed),
        'tapehouse.sync.fills',
        rawItems(page.raw, 'trades')[i],
      ),
    );
  }
  // The money movements among the activities (an ORDER activity mirrors its order, read below).
  for await (const page of client.portfolio.activityListPages({ limit: 500, types: ['DEPOSIT', 'SPLIT', 'MERGE'] })) {
    const observed = ms(page.value.as_of, nowMs);
    page.value.activities.forEach((a, i) =>
      rows.add(
        'activity_observations',
        activityRow(a, label, observed),
        'tapehouse.sync.activities',
        rawItems(page.raw, 'activities')[i],
      ),
    );
  }
  for await (const page of client.orders.orderPages({ limit: 500 })) {
    const observed = ms(page.value.as_of, nowMs);
    page.value.orders.forEach((o, i) =>
      rows.add(
        'order_observations',
        orderRow(o, label, observed),
        'tapehouse.sync.orders',
        rawItems(page.raw, 'orders')[i],
      ),
    );
  }
  const positions = await client.portfolio.positions();
  const asOf = ms(positions.value.as_of, nowMs);
  rows.add(
    'position_snapshots',
    { account: label, as_of: asOf, position_count: positions.value.positions.length, source: 'rest:positions/list' },
    'tapehouse.sync.positions',
    positions.raw,
  );
  // The snapshot's rows share its record's provenance (one record, one row per position).
  positions.value.positions.forEach((p, i) =>
    rows.addChild('position_observations', positionRow(p, label, asOf), 'position_snapshots', i),
  );
  const summary = await client.portfolio.summary();
  for (const s of summary.value.summaries)
    rows.add('portfolio_summaries', summaryRow(s, label, nowMs), 'tapehouse.sync.portfolio_summaries', s);
  const rebates = await client.portfolio.rebates();
  const r = rebates.value;
  rows.add(
    'rebates',
    {
      account: label,
      lp_incentive_micro: r.lp_incentive_micro ?? 0n,
      maker_rebate_micro: r.maker_rebate_micro ?? 0n,
      vip_rebate_micro: r.vip_rebate_micro ?? 0n,
      total_micro: r.total_micro ?? 0n,
      observed_at: nowMs,
    },
    'tapehouse.sync.rebates',
    rebates.raw,
  );
}

function fillRow(f: Fill, account: string, observedAt: number): Row {
  return {
    account,
    fill_id: f.fill_id ?? f.trade_id,
    trade_id: f.trade_id,
    order_id: f.order_id ?? '',
    token_id: f.token_id,
    condition_id: f.condition_id ?? '',
    status: f.status ?? '',
    exchange: f.exchange ?? '',
    side: f.side,
    role: f.role ?? '',
    price_micro: f.price_micro,
    shares_micro: f.shares_micro,
    fee_micro: f.fee_micro ?? 0n,
    executed_at: ms(f.executed_at, observedAt),
    transaction_hash: f.transaction_hash ?? '',
    source: 'rest:portfolio/trades',
    observed_at: observedAt,
    _sync_job: 'portfolio_trades',
  };
}

function activityRow(a: Activity, account: string, observedAt: number): Row {
  return {
    account,
    activity_id: a.id,
    type: a.type ?? '',
    order_id: a.order_id ?? '',
    condition_id: a.condition_id ?? '',
    token_id: a.token_id ?? '',
    side: a.side ?? '',
    status: a.status ?? '',
    fill_status: a.fill_status ?? '',
    filled_amount_micro: a.filled_amount_micro ?? 0n,
    filled_shares_micro: a.filled_shares_micro ?? 0n,
    average_fill_price_micro: a.average_fill_price_micro ?? null,
    fees_micro: a.fees_micro ?? 0n,
    created_at: ms(a.created_at, observedAt),
    observed_at: observedAt,
    _sync_job: 'activities',
  };
}

function orderRow(o: Order, account: string, observedAt: number): Row {
  return {
    account,
    order_id: o.internal_id,
    status: o.status,
    is_terminal: o.is_terminal ?? false,
    type: o.type ?? '',
    side: o.side ?? '',
    token_id: o.token_id ?? '',
    condition_id: o.condition_id ?? '',
    price_micro: o.price_micro ?? null,
    size_matched_micro: o.size_matched_micro ?? 0n,
    created_at: o.created_at === undefined ? null : ms(o.created_at, observedAt),
    source: 'rest:orders/list',
    observed_at: observedAt,
    _sync_job: 'orders',
  };
}

function positionRow(p: Position, account: string, asOf: number): Row {
  return {
    account,
    as_of: asOf,
    token_id: p.token_id,
    condition_id: p.condition_id ?? '',
    shares_micro: p.shares_micro ?? 0n,
    avg_price_micro: p.avg_price_micro ?? null,
    current_price_micro: p.current_price_micro ?? null,
    current_value_micro: p.current_value_micro ?? null,
    open_cost_basis_micro: p.open_cost_basis_micro ?? null,
    profit_loss_micro: p.profit_loss_micro ?? null,
    redeemable: p.redeemable ?? false,
    source: 'rest:positions/list',
  };
}

function summaryRow(s: Summary, account: string, nowMs: number): Row {
  return {
    account,
    exchange: s.exchange,
    as_of: ms(s.as_of, nowMs),
    cash_balance_micro: s.cash_balance_micro ?? 0n,
    free_cash_micro: s.free_cash_micro ?? 0n,
    open_cost_basis_micro: s.open_cost_basis_micro ?? 0n,
    open_unrealized_pnl_micro: s.open_unrealized_pnl_micro ?? 0n,
    portfolio_value_micro: s.portfolio_value_micro ?? 0n,
    positions_value_micro: s.positions_value_micro ?? 0n,
    source: 'rest:portfolio/summary',
  };
}

/** The outcomes of a market as the catalogue sync reads them (event detail), as outcomes rows. */
export async function readOutcomes(
  rows: WarehouseRows,
  client: VenueClient,
  eventSlug: string,
  nowMs: number,
): Promise<void> {
  const detail = await client.catalogue.event(eventSlug);
  for (const market of detail.value.markets ?? []) {
    for (const o of market.outcomes ?? []) {
      rows.add(
        'outcomes',
        {
          token_id: o.token_id,
          market_id: market.id,
          condition_id: market.condition_id ?? '',
          outcome_index: o.index ?? 0,
          resolution_price_micro: o.resolution_price_micro ?? null,
          observed_at: nowMs,
        },
        'tapehouse.sync.markets',
        o,
      );
    }
  }
}

/**
 * The stream side, as capture would load it: every market_status event, and for the chosen
 * accounts the account frames that matter to money — redemptions and collateral changes, the
 * latter with the change since the account's previous collateral frame (as the account socket
 * sends them).
 */
export function captureStreams(
  sim: SimulatorHandle,
  rows: WarehouseRows,
  accounts: readonly Account[],
  labelsOf: (account: Account) => string[] = (a) => [a.label],
): void {
  const lastCash = new Map(accounts.map((a) => [a.id, a.collateralMicro]));
  sim.venue.events.on('market_status', (e: MarketStatusEvent) =>
    rows.add('market_status', statusRow(e), 'tapehouse.market.status', statusRecord(e)),
  );
  sim.venue.events.on('account', (e: AccountEvent) => {
    const account = accounts.find((a) => a.id === e.accountId);
    if (!account) return;
    const frames = accountFrames(sim.venue, account, e).filter((f) => f.kind === 'position_redeemed');
    const cash = account.collateralMicro;
    if (cash !== lastCash.get(account.id)) {
      const reason = e.kind === 'balance' ? e.reason : e.kind === 'redemption' ? 'REDEMPTION' : 'FILL';
      frames.push({
        kind: 'collateral_updated',
        reason,
        change_micro: cash - (lastCash.get(account.id) ?? 0n),
        cash_balance_micro: cash,
      });
      lastCash.set(account.id, cash);
    }
    for (const frame of frames) {
      const data = frame as Record<string, unknown>;
      for (const label of labelsOf(account)) {
        rows.add(
          'account_events',
          {
            account: label,
            kind: data.kind,
            event_at: e.atMs,
            token_id: data.token_id ?? '',
            condition_id: data.condition_id ?? '',
            reason: data.reason ?? '',
          },
          'tapehouse.account.events',
          { type: 'account_events', ts: new Date(e.atMs).toISOString(), data },
        );
      }
    }
  });
}

function statusRow(e: MarketStatusEvent): Row {
  const payouts = (e.detail.payouts as Array<{ token_id: string; payout_micro: bigint }> | undefined) ?? [];
  return {
    condition_id: e.conditionId,
    market_id: e.marketId,
    event_id: e.eventId,
    kind: e.kind,
    status_at: e.atMs,
    winning_token_id: (e.detail.winning_token_id as string | undefined) ?? '',
    payout_token_ids: payouts.map((p) => p.token_id),
    payouts_micro: payouts.map((p) => p.payout_micro),
  };
}
