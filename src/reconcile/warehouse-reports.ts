import type { ClickHouseClient } from '@clickhouse/client';
import { atOrAfter, atOrBefore, microOf, msOf, requiredMicro, selectObjects } from './warehouse-query.ts';

/** What the venue reported, as the warehouse holds it: the figures a reconciliation checks. */

export interface VenuePosition {
  tokenId: string;
  conditionId: string;
  sharesMicro: bigint;
  avgPriceMicro: bigint | undefined;
  currentPriceMicro: bigint | undefined;
  openCostBasisMicro: bigint | undefined;
  profitLossMicro: bigint | undefined;
}

export interface PositionsSnapshot {
  asOfMs: number;
  source: string;
  positions: VenuePosition[];
}

export interface VenueSummary {
  exchange: string;
  asOfMs: number;
  cashBalanceMicro: bigint;
  positionsValueMicro: bigint;
  portfolioValueMicro: bigint;
  openCostBasisMicro: bigint;
  openUnrealizedPnlMicro: bigint;
}

export interface VenuePnlBucket {
  bucketAtMs: number;
  /** When the venue marked the account for this bucket: the instant its figures describe. */
  markAtMs: number;
  collateralMicro: bigint;
  inflowMicro: bigint;
  outflowMicro: bigint;
  lifetimePnlMicro: bigint;
  positionsValueMicro: bigint;
  positionCount: bigint;
}

export interface VenueRebates {
  observedAtMs: number;
  lpIncentiveMicro: bigint;
  makerRebateMicro: bigint;
  vipRebateMicro: bigint;
  totalMicro: bigint;
}

/** An order's matched size as the venue last reported it (orders list, or its ORDER activity). */
export interface OrderMatch {
  orderId: string;
  tokenId: string;
  side: string;
  createdAtMs: number | undefined;
  observedAtMs: number;
  matchedMicro: bigint;
}

/** Settled-PnL buckets the venue served while the PnL job did not read it (capture_gaps sync/pnl,
 * `buckets_not_observed`). */
export interface UnobservedBuckets {
  /** The bucket seen before and the bucket seen after (exclusive bounds), epoch ms. */
  afterMs: number;
  beforeMs: number;
  /** The recorded gap in words. */
  detail: string;
}

export interface VenueReports {
  positions: PositionsSnapshot | undefined;
  summary: VenueSummary | undefined;
  /** The positions read of the summary's instant, when it is not `positions` (its marks value the summary). */
  summaryPositions?: PositionsSnapshot;
  buckets: VenuePnlBucket[];
  /** Buckets the venue served that were never observed, in the window (absent: none recorded). */
  unobservedBuckets?: UnobservedBuckets[];
  rebates: VenueRebates | undefined;
  orders: OrderMatch[];
}

export interface ReportWindow {
  account: string;
  fromMs: number;
  toMs: number;
}

const USABLE_SNAPSHOTS = `
FROM tapehouse.position_snapshots
WHERE account = {account:String} AND empty(unavailable_exchanges) AND ${atOrBefore('as_of', 'to')} AND ${atOrAfter('as_of', 'from')}`;

// The newest usable positions read (as positions_latest picks it), at or before the window's end.
const SNAPSHOT_SQL = `
SELECT toUnixTimestamp64Milli(as_of) AS at, source
${USABLE_SNAPSHOTS}
ORDER BY as_of DESC, _received_at DESC, _offset DESC
LIMIT 1`;

// The read of one instant (the summary's pair).
const SNAPSHOT_AT_SQL = `
SELECT toUnixTimestamp64Milli(as_of) AS at, source
${USABLE_SNAPSHOTS} AND as_of = fromUnixTimestamp64Milli({at:Int64}, 'UTC')
ORDER BY _received_at DESC, _offset DESC
LIMIT 1`;

// That read's positions, put back together as positions_as_of does (sql/0110: a read of the
// portfolio stream's chain stores only what changed since the read before it).
const POSITIONS_SQL = `
SELECT token_id, condition_id, toString(shares_micro) AS shares, toString(avg_price_micro) AS avg_price,
       toString(current_price_micro) AS price, toString(open_cost_basis_micro) AS basis, toString(profit_loss_micro) AS pnl
FROM tapehouse.positions_as_of(at = fromUnixTimestamp64Milli({at:Int64}, 'UTC'))
WHERE account = {account:String}
ORDER BY token_id`;

async function readPositions(
  client: ClickHouseClient,
  w: ReportWindow,
  atMs?: number,
): Promise<PositionsSnapshot | undefined> {
  const [snapshot] = await selectObjects<{ at: string | number; source: string }>(
    client,
    atMs === undefined ? SNAPSHOT_SQL : SNAPSHOT_AT_SQL,
    {
      account: w.account,
      from: w.fromMs,
      to: w.toMs,
      ...(atMs === undefined ? {} : { at: atMs }),
    },
  );
  if (!snapshot) return undefined;
  const at = msOf(snapshot.at);
  const rows = await selectObjects<
    Record<'token_id' | 'condition_id' | 'shares' | 'avg_price' | 'price' | 'basis' | 'pnl', string | null>
  >(client, POSITIONS_SQL, {
    account: w.account,
    at,
  });
  return {
    asOfMs: at,
    source: snapshot.source,
    positions: rows.map((r) => ({
      tokenId: r.token_id ?? '',
      conditionId: r.condition_id ?? '',
      sharesMicro: requiredMicro(r.shares, `position ${r.token_id} shares`),
      avgPriceMicro: microOf(r.avg_price),
      currentPriceMicro: microOf(r.price),
      openCostBasisMicro: microOf(r.basis),
      profitLossMicro: microOf(r.pnl),
    })),
  };
}

// The newest summary with a positions read of the same instant — a pair (the portfolio stream
// sends them together; a REST summary and positions read taken one after the other are seconds
// apart), whose values rest on that read's marks — else the newest in the window. The summary
// at the newest positions read's instant wins a tie. One exchange: SERVICE, the only one named.
const SUMMARY_SQL = `
SELECT exchange, toUnixTimestamp64Milli(as_of) AS at, toString(cash_balance_micro) AS cash, toString(positions_value_micro) AS value,
       toString(portfolio_value_micro) AS portfolio, toString(open_cost_basis_micro) AS basis, toString(open_unrealized_pnl_micro) AS unrealised
FROM tapehouse.portfolio_summaries
WHERE account = {account:String} AND ${atOrBefore('as_of', 'to')} AND ${atOrAfter('as_of', 'from')}
ORDER BY exchange = 'SERVICE' DESC, as_of IN (SELECT as_of ${USABLE_SNAPSHOTS}) DESC,
         as_of = fromUnixTimestamp64Milli({paired:Int64}, 'UTC') DESC, as_of DESC, _received_at DESC
LIMIT 1`;

async function readSummary(
  client: ClickHouseClient,
  w: ReportWindow,
  pairedAtMs: number,
): Promise<VenueSummary | undefined> {
  const [row] = await selectObjects<
    Record<'exchange' | 'cash' | 'value' | 'portfolio' | 'basis' | 'unrealised', string> & { at: string | number }
  >(client, SUMMARY_SQL, {
    account: w.account,
    from: w.fromMs,
    to: w.toMs,
    paired: pairedAtMs,
  });
  if (!row) return undefined;
  return {
    exchange: row.exchange,
    asOfMs: msOf(row.at),
    cashBalanceMicro: BigInt(row.cash),
    positionsValueMicro: BigInt(row.value),
    portfolioValueMicro: BigInt(row.portfolio),
    openCostBasisMicro: BigInt(row.basis),
    openUnrealizedPnlMicro: BigInt(row.unrealised),
  };
}

const BUCKETS_SQL = `
SELECT toUnixTimestamp64Milli(bucket_at) AS bucket, toUnixTimestamp64Milli(coalesce(mark_captured_at, bucket_at)) AS mark,
       toString(collateral_micro) AS collateral, toString(cumulative_inflow_micro) AS inflow, toString(cumulative_outflow_micro) AS outflow,
       toString(lifetime_pnl_micro) AS lifetime, toString(positions_value_micro) AS value, toString(position_count) AS count
FROM tapehouse.pnl_settled_latest
WHERE account = {account:String} AND ${atOrBefore('bucket_at', 'to')} AND ${atOrAfter('bucket_at', 'from')}
ORDER BY bucket_at, chain_id`;

async function readBuckets(client: ClickHouseClient, w: ReportWindow): Promise<VenuePnlBucket[]> {
  const rows = await selectObjects<
    Record<'collateral' | 'inflow' | 'outflow' | 'lifetime' | 'value' | 'count', string> & {
      bucket: string | number;
      mark: string | number;
    }
  >(client, BUCKETS_SQL, { account: w.account, from: w.fromMs, to: w.toMs });
  return rows.map((r) => ({
    bucketAtMs: msOf(r.bucket),
    markAtMs: msOf(r.mark),
    collateralMicro: BigInt(r.collateral),
    inflowMicro: BigInt(r.inflow),
    outflowMicro: BigInt(r.outflow),
    lifetimePnlMicro: BigInt(r.lifetime),
    positionsValueMicro: BigInt(r.value),
    positionCount: BigInt(r.count),
  }));
}

// Buckets served while unobserved, overlapping the window: the last bucket seen before them may lie before it.
const UNOBSERVED_SQL = `
SELECT toUnixTimestamp64Milli(gap_start) AS after, toUnixTimestamp64Milli(gap_end) AS before, detail
FROM tapehouse.capture_gaps
WHERE stream = 'sync' AND channel = 'pnl' AND reason = 'buckets_not_observed' AND subject = {account:String}
  AND ${atOrBefore('gap_start', 'to')} AND ${atOrAfter('gap_end', 'from')}
ORDER BY gap_start, gap_end`;

async function readUnobservedBuckets(client: ClickHouseClient, w: ReportWindow): Promise<UnobservedBuckets[]> {
  const rows = await selectObjects<{ after: string | number; before: string | number; detail: string }>(
    client,
    UNOBSERVED_SQL,
    {
      account: w.account,
      from: w.fromMs,
      to: w.toMs,
    },
  );
  // A gap the loaders stored twice (a re-published page) is one gap.
  const seen = new Set<string>();
  return rows
    .map((r) => ({ afterMs: msOf(r.after), beforeMs: msOf(r.before), detail: r.detail }))
    .filter((g) => !seen.has(`${g.afterMs}|${g.beforeMs}`) && seen.add(`${g.afterMs}|${g.beforeMs}`));
}

const REBATES_SQL = `
SELECT toUnixTimestamp64Milli(observed_at) AS at, toString(lp_incentive_micro) AS lp, toString(maker_rebate_micro) AS maker,
       toString(vip_rebate_micro) AS vip, toString(total_micro) AS total
FROM tapehouse.rebates
WHERE account = {account:String} AND ${atOrBefore('observed_at', 'to')} AND ${atOrAfter('observed_at', 'from')}
ORDER BY observed_at DESC, _received_at DESC
LIMIT 1`;

async function readRebates(client: ClickHouseClient, w: ReportWindow): Promise<VenueRebates | undefined> {
  const [row] = await selectObjects<Record<'lp' | 'maker' | 'vip' | 'total', string> & { at: string | number }>(
    client,
    REBATES_SQL,
    {
      account: w.account,
      from: w.fromMs,
      to: w.toMs,
    },
  );
  if (!row) return undefined;
  return {
    observedAtMs: msOf(row.at),
    lpIncentiveMicro: BigInt(row.lp),
    makerRebateMicro: BigInt(row.maker),
    vipRebateMicro: BigInt(row.vip),
    totalMicro: BigInt(row.total),
  };
}

// Each order's newest reported matched size at or before the end, from the order list or the
// order's ORDER activity, whichever was observed later.
const ORDERS_SQL = `
SELECT order_id, argMax(token_id, observed_at) AS token, argMax(side, observed_at) AS side,
       min(created) AS created, toUnixTimestamp64Milli(max(observed_at)) AS observed, toString(argMax(matched, observed_at)) AS matched_shares
FROM (
  SELECT order_id, token_id, side, toUnixTimestamp64Milli(created_at) AS created, observed_at, size_matched_micro AS matched
  FROM tapehouse.order_observations WHERE account = {account:String} AND ${atOrBefore('observed_at', 'to')}
  UNION ALL
  SELECT order_id, token_id, side, toUnixTimestamp64Milli(created_at) AS created, observed_at, filled_shares_micro AS matched
  FROM tapehouse.activity_observations WHERE account = {account:String} AND type = 'ORDER' AND order_id != '' AND ${atOrBefore('observed_at', 'to')}
)
GROUP BY order_id
HAVING argMax(matched, observed_at) > 0
ORDER BY order_id`;

async function readOrders(client: ClickHouseClient, w: ReportWindow): Promise<OrderMatch[]> {
  const rows = await selectObjects<{
    order_id: string;
    token: string;
    side: string;
    created: string | number | null;
    observed: string | number;
    matched_shares: string;
  }>(client, ORDERS_SQL, {
    account: w.account,
    to: w.toMs,
  });
  return rows.map((r) => ({
    orderId: r.order_id,
    tokenId: r.token,
    side: r.side,
    createdAtMs: r.created === null ? undefined : msOf(r.created),
    observedAtMs: msOf(r.observed),
    matchedMicro: BigInt(r.matched_shares),
  }));
}

/** Reads the venue's figures for one account within the window. */
export async function readVenueReports(client: ClickHouseClient, w: ReportWindow): Promise<VenueReports> {
  const positions = await readPositions(client, w);
  const summary = await readSummary(client, w, positions?.asOfMs ?? 0);
  const paired =
    summary && summary.asOfMs !== positions?.asOfMs ? await readPositions(client, w, summary.asOfMs) : undefined;
  return {
    positions,
    summary,
    ...(paired ? { summaryPositions: paired } : {}),
    buckets: await readBuckets(client, w),
    unobservedBuckets: await readUnobservedBuckets(client, w),
    rebates: await readRebates(client, w),
    orders: await readOrders(client, w),
  };
}
