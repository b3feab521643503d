import type { Account, Activity, Position } from '../../accounts/account.ts';
import { accountTotals, valuePosition } from '../../engine/valuation.ts';
import { isoTime } from '../../clock.ts';
import { asReported } from '../../orders.ts';
import type { Venue } from '../../venue.ts';
import { averageFillPriceMicro } from './order.ts';

export function renderSummary(venue: Venue, account: Account, nowMs: number): Record<string, unknown> {
  const t = accountTotals(venue.catalogue, venue.exchange, account);
  return {
    exchange: 'SERVICE',
    accounting_status: 'AVAILABLE',
    as_of: isoTime(nowMs),
    cash_balance_micro: account.collateralMicro,
    free_cash_micro: account.freeCollateralMicro(),
    open_cost_basis_micro: t.openCostBasisMicro,
    open_unrealized_pnl_micro: t.unrealisedPnlMicro,
    portfolio_value_micro: account.collateralMicro + t.positionsValueMicro,
    positions_value_micro: t.positionsValueMicro,
  };
}

/** profit / cost as a percentage with two decimals; 0 when there is no cost. */
function percent(pnl: bigint, cost: bigint): number {
  return cost === 0n ? 0 : Number((pnl * 10_000n) / cost) / 100;
}

export function renderPosition(
  venue: Venue,
  position: Position,
  counterpart: Position | undefined,
): Record<string, unknown> {
  const ref = venue.catalogue.token(position.tokenId);
  const v = valuePosition(venue.catalogue, venue.exchange, position);
  const mergeable = counterpart
    ? counterpart.sharesMicro < position.sharesMicro
      ? counterpart.sharesMicro
      : position.sharesMicro
    : 0n;
  const market = ref?.market;
  const event = market ? venue.catalogue.eventOf(market) : undefined;
  return {
    token_id: position.tokenId,
    condition_id: position.conditionId,
    exchange: 'SERVICE',
    accounting_status: 'AVAILABLE',
    shares_micro: position.sharesMicro,
    available_shares_micro: position.sharesMicro - position.reservedSharesMicro,
    mergeable_shares_micro: mergeable,
    mergeable: mergeable > 0n,
    redeemable: market?.state === 'RESOLVED',
    avg_price_micro: position.sharesMicro > 0n ? (position.costBasisMicro * 1_000_000n) / position.sharesMicro : 0n,
    current_price_micro: v.markMicro,
    current_value_micro: v.valueMicro,
    open_cost_basis_micro: position.costBasisMicro,
    profit_loss_micro: v.unrealisedMicro,
    profit_loss_percent: percent(v.unrealisedMicro, position.costBasisMicro),
    to_win_micro: position.sharesMicro,
    event: event ? { id: event.id, slug: event.slug, title: event.title } : undefined,
    market:
      market && ref
        ? {
            id: market.id,
            slug: market.slug,
            question: market.question,
            outcome: market.outcomes[ref.outcomeIndex].label,
          }
        : undefined,
  };
}

export function openPositions(account: Account, tokenIds?: string[], conditionIds?: string[]): Position[] {
  return [...account.positions.values()].filter(
    (p) =>
      p.sharesMicro > 0n &&
      (!tokenIds || tokenIds.includes(p.tokenId)) &&
      (!conditionIds || conditionIds.includes(p.conditionId)),
  );
}

/** The complementary outcome's position, for mergeable shares. */
export function counterpartOf(venue: Venue, account: Account, position: Position): Position | undefined {
  const ref = venue.catalogue.token(position.tokenId);
  if (!ref) return undefined;
  return account.position(ref.market.outcomes[ref.outcomeIndex === 0 ? 1 : 0].tokenId);
}

export function renderActivity(venue: Venue, activity: Activity): Record<string, unknown> {
  const base = { id: activity.id, type: activity.type, exchange: 'SERVICE', created_at: isoTime(activity.createdAtMs) };
  const venueOrder = activity.orderId ? venue.exchange.orders.get(activity.orderId) : undefined;
  const order = venueOrder && asReported(venueOrder);
  if (!order)
    return {
      ...base,
      condition_id: activity.conditionId,
      token_id: activity.tokenId,
      status: 'CONFIRMED',
      amount_micro: activity.amountMicro,
      batch_hash: activity.batchHash,
    };
  const full = order.status === 'MATCHED';
  return {
    ...base,
    order_id: order.id,
    condition_id: order.conditionId,
    token_id: order.tokenId,
    side: order.side,
    status: order.status,
    fill_status: order.sizeMatchedMicro === 0n ? 'NONE' : full ? 'FULL' : 'PARTIAL',
    filled_amount_micro: order.notionalMatchedMicro,
    filled_shares_micro: order.sizeMatchedMicro,
    average_fill_price_micro: averageFillPriceMicro(order),
    fees_micro: order.feesMicro,
  };
}
