import { CHAIN_ID } from '../../engine/pnl-marks.ts';
import type { Activity } from '../../accounts/account.ts';
import { isoTime } from '../../clock.ts';
import { isReported, isTerminal } from '../../orders.ts';
import { reportedFills, reportedPnlBucket, reportedPosition } from '../../misreport.ts';
import type { Prng } from '../../prng.ts';
import { Rejection } from '../../problems.ts';
import { requireAccount, type RequestContext, type Reply, type RouteSpec } from '../context.ts';
import { BodyReader } from '../body-reader.ts';
import { fingerprint } from '../cursor.ts';
import { listPage } from '../list-page.ts';
import { QueryReader } from '../query.ts';
import { lookupMaps } from '../../wire/render/lookups.ts';
import { renderFill, renderOrder } from '../../wire/render/order.ts';
import {
  counterpartOf,
  openPositions,
  renderActivity,
  renderPosition,
  renderSummary,
} from '../../wire/render/portfolio.ts';

const asOf = (ctx: RequestContext): string => isoTime(ctx.nowMs);

function summary(ctx: RequestContext): Reply {
  return { status: 200, body: { summaries: [renderSummary(ctx.venue, requireAccount(ctx), ctx.nowMs)] } };
}

const unavailability = new WeakMap<object, Prng>();

/** Now and then (a deployment setting, or an injected fault) the exchange's positions are unusable for one read. */
function positionsUnavailable(ctx: RequestContext): boolean {
  if (ctx.faults?.positionsUnavailable(ctx.nowMs)) return true;
  const rate = ctx.deployment.positionsUnavailableRate;
  if (rate <= 0) return false;
  let rng = unavailability.get(ctx.venue);
  if (!rng) {
    rng = ctx.venue.prng('positions-unavailable');
    unavailability.set(ctx.venue, rng);
  }
  return rng.chance(rate);
}

function positions(ctx: RequestContext): Reply {
  const body = new BodyReader(ctx.body);
  const tokenIds = body.strings('token_ids');
  const conditionIds = body.strings('condition_ids');
  body.done();
  const account = requireAccount(ctx);
  if (positionsUnavailable(ctx))
    return { status: 200, body: { as_of: asOf(ctx), positions: [], unavailable_exchanges: ['SERVICE'] } };
  const list = openPositions(account, tokenIds, conditionIds).map((p) =>
    reportedPosition(ctx.venue, renderPosition(ctx.venue, p, counterpartOf(ctx.venue, account, p))),
  );
  return { status: 200, body: { as_of: asOf(ctx), positions: list, unavailable_exchanges: [] } };
}

function openOrders(ctx: RequestContext): Reply {
  const body = new BodyReader(ctx.body);
  const tokenIds = body.strings('token_ids');
  const limit = body.int('limit', { min: 1, max: 500, fallback: 100 });
  const cursor = body.string('cursor');
  body.done();
  const print = fingerprint({ token_ids: tokenIds });
  const open = requireAccount(ctx).orders.filter(
    (o) => !isTerminal(o.status) && (!tokenIds || tokenIds.includes(o.tokenId)),
  );
  const { page, nextCursor } = listPage(ctx, open, (o) => [BigInt(-o.seq)], cursor, limit, print);
  const { markets, events } = lookupMaps(
    ctx.venue,
    page.map((o) => o.tokenId),
  );
  return {
    status: 200,
    body: {
      as_of: asOf(ctx),
      orders: page.map(renderOrder),
      markets,
      events,
      pagination: { limit, next_cursor: nextCursor },
    },
  };
}

function trades(ctx: RequestContext): Reply {
  const q = new QueryReader(ctx.query);
  const limit = q.int('limit', { min: 1, max: 500, fallback: 100 });
  const filters = { token_id: q.string('token_id'), condition_id: q.string('condition_id') };
  const cursor = q.string('cursor');
  q.done();
  const print = fingerprint(filters);
  const fills = reportedFills(ctx.venue, requireAccount(ctx).fills).filter(
    (f) =>
      isReported(f, ctx.nowMs) &&
      (filters.token_id === undefined || f.tokenId === filters.token_id) &&
      (filters.condition_id === undefined || f.conditionId === filters.condition_id),
  );
  const { page, nextCursor } = listPage(ctx, fills, (f) => [BigInt(-f.seq)], cursor, limit, print);
  const { markets, events } = lookupMaps(
    ctx.venue,
    page.map((f) => f.tokenId),
  );
  return {
    status: 200,
    body: {
      as_of: asOf(ctx),
      trades: page.map(renderFill),
      markets,
      events,
      pagination: { limit, next_cursor: nextCursor },
    },
  };
}

function activitiesPage(
  ctx: RequestContext,
  limit: number,
  cursor: string | undefined,
  filters: { types?: string[]; condition_ids?: string[] },
): Reply {
  const print = fingerprint(filters);
  const list = requireAccount(ctx).activities.filter(
    (a: Activity) =>
      (!filters.types || filters.types.includes(a.type)) &&
      (!filters.condition_ids || (a.conditionId !== undefined && filters.condition_ids.includes(a.conditionId))),
  );
  const { page, nextCursor } = listPage(ctx, list, (a) => [BigInt(-a.seq)], cursor, limit, print);
  const maps = lookupMaps(
    ctx.venue,
    page.map((a) => a.tokenId).filter((t): t is string => t !== undefined),
  );
  return {
    status: 200,
    body: {
      activities: page.map((a) => renderActivity(ctx.venue, a)),
      as_of: asOf(ctx),
      conditions: maps.conditions,
      events: maps.events,
      markets: maps.markets,
      pagination: { limit, next_cursor: nextCursor },
    },
  };
}

function activities(ctx: RequestContext): Reply {
  const q = new QueryReader(ctx.query);
  const limit = q.int('limit', { min: 1, max: 500, fallback: 50 });
  const cursor = q.string('cursor');
  q.done();
  return activitiesPage(ctx, limit, cursor, {});
}

function activitiesList(ctx: RequestContext): Reply {
  const body = new BodyReader(ctx.body);
  const limit = body.int('limit', { min: 1, max: 500, fallback: 50 });
  const cursor = body.string('cursor');
  const types = body.strings('types');
  const conditionIds = body.strings('condition_ids');
  body.done();
  return activitiesPage(ctx, limit, cursor, { types, condition_ids: conditionIds });
}

function pnl(ctx: RequestContext): Reply {
  const bucket = ctx.venue.pnl.latest(requireAccount(ctx).id);
  if (!bucket) {
    const after = ctx.venue.pnl.secondsUntilNextRun(ctx.nowMs);
    throw new Rejection(
      'pnl_not_ready',
      'PnL is computed periodically; wait and repeat.',
      undefined,
      { strategy: 'retry_after', after_seconds: after },
      { 'Retry-After': String(after) },
    );
  }
  return {
    status: 200,
    body: reportedPnlBucket(ctx.venue, bucket.bucketAtMs, {
      bucket_at: isoTime(bucket.bucketAtMs),
      chain_id: CHAIN_ID,
      classification_version: 1,
      collateral_micro: bucket.collateralMicro,
      cumulative_inflow_micro: bucket.inflowMicro,
      cumulative_outflow_micro: bucket.outflowMicro,
      custody_through_block: bucket.block,
      custody_through_block_hash: bucket.blockHash,
      custody_through_block_time: isoTime(bucket.blockTimeMs),
      lifetime_pnl_micro: bucket.lifetimePnlMicro,
      mark_captured_at: isoTime(bucket.markCapturedAtMs),
      mark_run_id: bucket.markRunId,
      position_count: bucket.positionCount,
      positions_value_micro: bucket.positionsValueMicro,
      wallet_universe_generation: 1,
    }),
  };
}

function rebates(ctx: RequestContext): Reply {
  const a = requireAccount(ctx);
  return {
    status: 200,
    body: {
      lp_incentive_micro: a.lpIncentivesMicro,
      maker_rebate_micro: a.makerRebatesMicro,
      vip_rebate_micro: a.vipRebatesMicro,
      total_micro: a.lpIncentivesMicro + a.makerRebatesMicro + a.vipRebatesMicro,
    },
  };
}

const USDC = { name: 'USD Coin', symbol: 'USDC', decimals: 6 };
const CHAINS: Array<[chainId: string, name: string, tokenAddress: string, minUsd: string]> = [
  ['137', 'Polygon', '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', '2'],
  ['1', 'Ethereum', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', '20'],
  ['8453', 'Base', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', '2'],
  ['42161', 'Arbitrum', '0xaf88d065e77c8cc2239327c5edb3a432268e5831', '2'],
];

function supportedAssets(ctx: RequestContext): Reply {
  return {
    status: 200,
    body: {
      note: 'Withdrawals settle asynchronously; cross-chain routes are quoted by the web flow.',
      wallet_address: requireAccount(ctx).walletAddress,
      supported_assets: CHAINS.map(([chainId, name, address, min]) => ({
        address_type: 'EVM',
        chain_id: chainId,
        chain_name: name,
        chain_icon_url: `https://assets.example.invalid/chains/${name.toLowerCase()}.png`,
        min_checkout_usd: min,
        token: { address, ...USDC },
      })),
    },
  };
}

export const portfolioRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/trade/v1/portfolio/summary',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    handler: summary,
  },
  {
    method: 'POST',
    path: '/trade/v1/portfolio/positions/list',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    body: 'optional-json',
    handler: positions,
  },
  {
    method: 'POST',
    path: '/trade/v1/portfolio/open-orders/list',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    body: 'optional-json',
    handler: openOrders,
  },
  {
    method: 'GET',
    path: '/trade/v1/portfolio/trades',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    handler: trades,
  },
  {
    method: 'GET',
    path: '/trade/v1/portfolio/activities',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    handler: activities,
  },
  {
    method: 'POST',
    path: '/trade/v1/portfolio/activities/list',
    auth: 'pat',
    scope: 'portfolio:read',
    readCost: 5,
    body: 'optional-json',
    handler: activitiesList,
  },
  { method: 'GET', path: '/trade/v1/portfolio/pnl', auth: 'pat', scope: 'portfolio:read', handler: pnl },
  { method: 'GET', path: '/trade/v1/portfolio/rebates', auth: 'pat', scope: 'portfolio:read', handler: rebates },
  {
    method: 'GET',
    path: '/trade/v1/portfolio/bridge/withdraw/supported-assets',
    auth: 'pat',
    scope: 'portfolio:read',
    feature: 'withdrawals',
    handler: supportedAssets,
  },
];
