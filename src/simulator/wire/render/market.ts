import { isoTime } from '../../clock.ts';
import type { SimMarket, SimOutcome } from '../../catalogue/types.ts';
import { microToNumber, notionalFloor } from '../../money.ts';
import type { Venue } from '../../venue.ts';
import { wireMarketState, wireResolutionStatus } from './wire-states.ts';

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : isoTime(ms));

/** Collateral micro-units as a decimal string of whole units, e.g. 1234500000 → "1234.5". */
export function unitsString(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${sign}${abs / 1_000_000n}${frac ? `.${frac}` : ''}`;
}

/** Resting notional on both sides of the book: the market's liquidity. */
export function liquidityMicro(venue: Venue, market: SimMarket): bigint {
  const book = venue.exchange.book(market);
  let total = 0n;
  for (const order of book.restingOrders()) {
    const left = (order.originalSizeMicro ?? 0n) - order.sizeMatchedMicro;
    total += notionalFloor(order.priceMicro ?? 0n, left);
  }
  return total;
}

export function renderOutcome(venue: Venue, market: SimMarket, outcome: SimOutcome): Record<string, unknown> {
  const top = venue.exchange.book(market).topFor(outcome.index);
  const display = {
    label: outcome.label,
    kind: outcome.kind,
    short_label: outcome.shortLabel,
    team_side: outcome.teamSide,
    side: outcome.side,
    threshold: outcome.threshold,
    bet_slip_title: outcome.betSlipTitle,
    resolution_label: outcome.resolutionLabel,
    service_cms: {},
  };
  return {
    id: outcome.id,
    index: outcome.index,
    label: outcome.label,
    short_label: outcome.shortLabel,
    token_id: outcome.tokenId,
    price_micro: venue.exchange.markPriceMicro(market, outcome.index),
    best_bid_micro: top.bid,
    best_ask_micro: top.ask,
    spread_micro: top.bid !== undefined && top.ask !== undefined ? top.ask - top.bid : undefined,
    resolution_price_micro: outcome.resolutionPriceMicro,
    bet_slip_title: outcome.betSlipTitle,
    resolution_label: outcome.resolutionLabel,
    kind: outcome.kind,
    team_side: outcome.teamSide,
    side: outcome.side,
    threshold: outcome.threshold,
    display,
  };
}

function resolutionOf(market: SimMarket): Record<string, unknown> {
  const cycle = market.recurring;
  if (!cycle) return { source: market.resolutionSource, observed_at: iso(market.resolvedAtMs) };
  const observed =
    market.outcomes[0].resolutionPriceMicro === undefined
      ? undefined
      : String(Math.round(cycle.referencePrice * (market.outcomes[0].resolutionPriceMicro > 0n ? 1.001 : 0.999)));
  return {
    source: 'oracle:chainlink',
    reference_value: String(cycle.referencePrice),
    observed_value: observed,
    observed_at: observed === undefined ? undefined : isoTime(cycle.observeAtMs),
  };
}

export function renderMarket(venue: Venue, market: SimMarket, detail: boolean): Record<string, unknown> {
  const liquidity = liquidityMicro(venue, market);
  const cycle = market.recurring;
  const isThreeWay = market.threeWayRole !== undefined;
  return {
    id: market.id,
    slug: market.slug,
    question: market.question,
    condition_id: market.conditionId,
    neg_risk_id: market.negRiskId,
    state: wireMarketState(market, venue.cases),
    exchange: 'SERVICE',
    display_type: 'BINARY',
    source_market_type: market.sourceMarketType,
    line: market.line,
    display_label: market.displayLabel,
    resolution_outcome: market.resolutionOutcome,
    is_accepting_orders: venue.catalogue.isAcceptingOrders(market),
    halted_at: iso(market.haltedAtMs),
    halted_reason: market.haltedReason,
    resolved_at: iso(market.resolvedAtMs),
    archived_at: iso(market.archivedAtMs),
    volume_micro: market.volumeMicro,
    volume_24h_micro: venue.exchange.volume24hMicro(market),
    liquidity: unitsString(liquidity),
    tick_size_micro: market.tickMicro,
    min_order_size_micro: market.minOrderSizeMicro,
    engine_config: {
      tick_size: 1,
      price_scale: market.priceScale,
      size_scale: market.sizeScale,
      min_price: 1,
      max_price: market.priceScale - 1,
    },
    resolution_status: wireResolutionStatus(market.resolutionStatus, venue.cases),
    resolution: resolutionOf(market),
    three_way_role: market.threeWayRole,
    is_three_way: isThreeWay,
    game_number: market.gameNumber,
    outcomes: market.outcomes.map((o) => renderOutcome(venue, market, o)),
    lp_incentive:
      detail && market.lpIncentive
        ? {
            pool_micro: market.lpIncentive.poolMicro,
            max_spread_micro: market.lpIncentive.maxSpreadMicro,
            min_shares_micro: market.lpIncentive.minSharesMicro,
          }
        : undefined,
    display: {
      image_url: `https://assets.example.invalid/markets/${market.slug}.png`,
      portfolio_title: market.question,
      description: market.description,
      resolution_source: market.resolutionSource,
      resolution_criteria: market.description,
      resolution_sources: [{ title: 'Official results', url: market.resolutionSource }],
      player_name: market.playerName,
      stat_type: market.statType,
      liquidity: microToNumber(liquidity),
      cadence_seconds: cycle?.cadenceSeconds,
      series_color: detail && cycle ? '#F7931A' : undefined,
      reference_price: cycle?.referencePrice,
      currency: cycle ? 'USD' : undefined,
      reference_at: cycle ? isoTime(market.openMs) : undefined,
      observe_at: cycle ? isoTime(cycle.observeAtMs) : undefined,
      oracle_feed_id: cycle ? `${cycle.symbol}-USD` : undefined,
      oracle_benchmark_symbol: cycle ? `${cycle.symbol}/USD` : undefined,
      charting_symbol: cycle ? `${cycle.symbol}USD` : undefined,
      game_number: market.gameNumber,
      is_three_way: isThreeWay,
      three_way_role: market.threeWayRole,
      display_label: market.displayLabel,
      service_cms: {},
    },
  };
}

/** The lean market of `listing_markets` (§4.2 include_markets). */
export function renderListingMarket(venue: Venue, market: SimMarket): Record<string, unknown> {
  return {
    id: market.id,
    slug: market.slug,
    question: market.question,
    condition_id: market.conditionId,
    state: wireMarketState(market, venue.cases),
    is_accepting_orders: venue.catalogue.isAcceptingOrders(market),
    outcomes: market.outcomes.map((o) => ({
      id: o.id,
      label: o.label,
      token_id: o.tokenId,
      price_micro: venue.exchange.markPriceMicro(market, o.index),
    })),
  };
}
