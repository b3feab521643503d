import { z } from 'zod';
import { exchange, flag, maybe, micro, openEnum, PaginationSchema, side, text, timestamp } from './common.ts';
import { FailureSchema } from './failure.ts';
import { lookupMap, LookupEventSchema, LookupMarketSchema } from './lookups.ts';

/** Named statuses (§3.1); the resting status exists but its name is not shown, so it arrives as an unknown value. */
export const ORDER_STATUSES = ['PENDING', 'SUBMITTING', 'CANCELLED', 'MATCHED', 'REJECTED', 'FAILED'] as const;
export const ORDER_TYPES = ['LIMIT', 'MARKET'] as const;

/** Order (§2.1). Only the identity and status are required; the rest depends on type and state. */
export const OrderSchema = z.looseObject({
  internal_id: text,
  status: openEnum(ORDER_STATUSES),
  is_terminal: maybe(flag),
  type: maybe(openEnum(ORDER_TYPES)),
  side: maybe(side),
  token_id: maybe(text),
  condition_id: maybe(text),
  exchange: maybe(exchange),
  price_micro: maybe(micro),
  original_size_micro: maybe(micro),
  size_matched_micro: maybe(micro),
  collateral_amount_micro: maybe(micro),
  avg_fill_price_micro: maybe(micro),
  created_at: maybe(timestamp),
  expiration: maybe(timestamp),
  cancel_requested_at: maybe(timestamp),
  failure: maybe(FailureSchema),
});
export type Order = z.infer<typeof OrderSchema>;

export const FILL_ROLES = ['MAKER', 'TAKER'] as const;

/** Order fill (trade) record (§2.3). The taker role's name is not shown; TAKER is our guess, any value is kept. */
export const FillSchema = z.looseObject({
  trade_id: text,
  fill_id: maybe(text),
  order_id: maybe(text),
  token_id: maybe(text),
  status: maybe(text),
  exchange: maybe(exchange),
  side: maybe(side),
  role: maybe(openEnum(FILL_ROLES)),
  price_micro: maybe(micro),
  shares_micro: maybe(micro),
  fee_micro: maybe(micro),
  executed_at: maybe(timestamp),
  transaction_hash: maybe(text),
});
export type Fill = z.infer<typeof FillSchema>;

/** GET /trade/v1/orders/{order_id}/trades. */
export const OrderTradesResponseSchema = z.looseObject({
  as_of: maybe(timestamp),
  trades: z.array(FillSchema),
});
export type OrderTradesResponse = z.infer<typeof OrderTradesResponseSchema>;

/**
 * One page of POST /trade/v1/orders/list and POST /trade/v1/portfolio/open-orders/list.
 * Open orders are shown as `{as_of, orders, markets, events, pagination}`; the order list's shape is
 * not shown, and we read it the same way.
 */
export const OrdersPageSchema = z.looseObject({
  as_of: maybe(timestamp),
  orders: z.array(OrderSchema),
  markets: lookupMap(LookupMarketSchema),
  events: lookupMap(LookupEventSchema),
  pagination: maybe(PaginationSchema),
});
export type OrdersPage = z.infer<typeof OrdersPageSchema>;

/** GET /trade/v1/orders/by-hash/{order_hash}: "the existing signed order"; read as an Order. */
export const SignedOrderSchema = OrderSchema;
