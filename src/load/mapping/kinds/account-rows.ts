import { flag, integer, objectField, requiredInteger, requiredText, text, timeField, type Payload } from '../fields.ts';
import type { Row } from '../types.ts';

/**
 * Rows of the account's entities, shared by the REST records (sync jobs) and the account stream's
 * frames, which carry the same Order and fill objects.
 */

/** An Order (§2.1) as an orders row: one observed state. */
export function orderRow(order: Payload, account: string, source: string, observedAt: number, cancelReason = ''): Row {
  const failure = objectField(order, 'failure') ?? {};
  const recovery = objectField(failure, 'recovery') ?? {};
  return {
    account,
    order_id: requiredText(order, 'internal_id'),
    status: requiredText(order, 'status'),
    is_terminal: flag(order, 'is_terminal'),
    type: text(order, 'type'),
    side: text(order, 'side'),
    token_id: text(order, 'token_id'),
    condition_id: text(order, 'condition_id'),
    exchange: text(order, 'exchange'),
    price_micro: integer(order, 'price_micro') ?? null,
    original_size_micro: integer(order, 'original_size_micro') ?? null,
    size_matched_micro: integer(order, 'size_matched_micro'),
    collateral_amount_micro: integer(order, 'collateral_amount_micro') ?? null,
    avg_fill_price_micro: integer(order, 'avg_fill_price_micro') ?? null,
    created_at: timeField(order, 'created_at') ?? null,
    expiration: timeField(order, 'expiration') ?? null,
    cancel_requested_at: timeField(order, 'cancel_requested_at') ?? null,
    cancel_reason: cancelReason,
    failure_code: text(failure, 'code'),
    failure_title: text(failure, 'title'),
    failure_detail: text(failure, 'detail'),
    failure_recovery_strategy: text(recovery, 'strategy'),
    source,
    observed_at: observedAt,
  };
}

/** A fill record (§2.3) as a fill_observations row; `fill_id` falls back to the trade id. */
export function fillRow(fill: Payload, account: string, source: string, observedAt: number): Row {
  return {
    account,
    fill_id: text(fill, 'fill_id', text(fill, 'trade_id')) || requiredText(fill, 'fill_id'),
    trade_id: text(fill, 'trade_id'),
    order_id: text(fill, 'order_id'),
    token_id: requiredText(fill, 'token_id'),
    condition_id: text(fill, 'condition_id'),
    status: text(fill, 'status'),
    exchange: text(fill, 'exchange'),
    side: requiredText(fill, 'side'),
    role: text(fill, 'role'),
    price_micro: requiredInteger(fill, 'price_micro'),
    shares_micro: requiredInteger(fill, 'shares_micro'),
    fee_micro: integer(fill, 'fee_micro'),
    executed_at: timeField(fill, 'executed_at') ?? observedAt,
    transaction_hash: text(fill, 'transaction_hash'),
    source,
    observed_at: observedAt,
  };
}
