import { isoTime } from '../../clock.ts';
import { asReported, isTerminal, type SimFill, type SimOrder } from '../../orders.ts';

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : isoTime(ms));

export function averageFillPriceMicro(order: SimOrder): bigint | undefined {
  return order.sizeMatchedMicro > 0n ? (order.notionalMatchedMicro * 1_000_000n) / order.sizeMatchedMicro : undefined;
}

/** The Order of §2.1 as the venue reports it now; absent values are left out. */
export function renderOrder(venueOrder: SimOrder): Record<string, unknown> {
  const order = asReported(venueOrder);
  return {
    internal_id: order.id,
    status: order.status,
    is_terminal: isTerminal(order.status),
    type: order.type,
    side: order.side,
    time_in_force: order.timeInForce,
    post_only: order.postOnly,
    token_id: order.tokenId,
    condition_id: order.conditionId,
    exchange: 'SERVICE',
    price_micro: order.type === 'LIMIT' ? order.priceMicro : undefined,
    original_size_micro: order.originalSizeMicro,
    size_matched_micro: order.sizeMatchedMicro,
    collateral_amount_micro: order.collateralAmountMicro,
    avg_fill_price_micro: averageFillPriceMicro(order),
    created_at: isoTime(order.createdAtMs),
    expiration: iso(order.expirationMs),
    cancel_requested_at: iso(order.cancelRequestedAtMs),
    order_hash: order.orderHash,
    failure: order.failure,
  };
}

/** The fill record of §2.3. */
export function renderFill(fill: SimFill): Record<string, unknown> {
  return {
    trade_id: fill.tradeId,
    fill_id: fill.fillId,
    order_id: fill.orderId,
    token_id: fill.tokenId,
    condition_id: fill.conditionId,
    status: fill.status,
    exchange: 'SERVICE',
    side: fill.side,
    role: fill.role,
    price_micro: fill.priceMicro,
    shares_micro: fill.sharesMicro,
    fee_micro: fill.feeMicro,
    executed_at: isoTime(fill.executedAtMs),
    transaction_hash: fill.transactionHash || undefined,
  };
}
