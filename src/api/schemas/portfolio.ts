import { z } from 'zod';
import {
  exchange,
  flag,
  integer,
  maybe,
  micro,
  number,
  opaqueObject,
  openEnum,
  PaginationSchema,
  side,
  signedMicro,
  text,
  timestamp,
} from './common.ts';
import { FillSchema } from './order.ts';
import { lookupMap, LookupConditionSchema, LookupEventSchema, LookupMarketSchema } from './lookups.ts';

export const ACCOUNTING_STATUSES = ['AVAILABLE'] as const;

/** Position (§2.5). `profit_loss_micro` is signed; every other amount is non-negative. */
export const PositionSchema = z.looseObject({
  token_id: text,
  condition_id: maybe(text),
  exchange: maybe(exchange),
  accounting_status: maybe(openEnum(ACCOUNTING_STATUSES)),
  shares_micro: maybe(micro),
  available_shares_micro: maybe(micro),
  mergeable_shares_micro: maybe(micro),
  mergeable: maybe(flag),
  redeemable: maybe(flag),
  avg_price_micro: maybe(micro),
  current_price_micro: maybe(micro),
  current_value_micro: maybe(micro),
  open_cost_basis_micro: maybe(micro),
  profit_loss_micro: maybe(signedMicro),
  profit_loss_percent: maybe(number),
  to_win_micro: maybe(micro),
  event: maybe(opaqueObject),
  market: maybe(opaqueObject),
});
export type Position = z.infer<typeof PositionSchema>;

/** Positions response: when `unavailable_exchanges` holds an exchange, its positions are not usable. */
export const PositionsResponseSchema = z.looseObject({
  as_of: maybe(timestamp),
  positions: z.array(PositionSchema),
  unavailable_exchanges: maybe(z.array(exchange)),
});
export type PositionsResponse = z.infer<typeof PositionsResponseSchema>;

/** Summary (one per exchange). Unrealized PnL is signed; so is free cash, which reservations can push below zero. */
export const SummarySchema = z.looseObject({
  exchange: exchange,
  accounting_status: maybe(openEnum(ACCOUNTING_STATUSES)),
  as_of: maybe(timestamp),
  cash_balance_micro: maybe(micro),
  free_cash_micro: maybe(signedMicro),
  open_cost_basis_micro: maybe(micro),
  open_unrealized_pnl_micro: maybe(signedMicro),
  portfolio_value_micro: maybe(micro),
  positions_value_micro: maybe(micro),
});
export type Summary = z.infer<typeof SummarySchema>;

export const SummaryResponseSchema = z.looseObject({ summaries: z.array(SummarySchema) });
export type SummaryResponse = z.infer<typeof SummaryResponseSchema>;

/** Settled PnL (§2.5). Lifetime PnL is signed; collateral, flows and values are not. */
export const SettledPnlSchema = z.looseObject({
  bucket_at: maybe(timestamp),
  chain_id: maybe(integer),
  classification_version: maybe(integer),
  collateral_micro: maybe(micro),
  cumulative_inflow_micro: maybe(micro),
  cumulative_outflow_micro: maybe(micro),
  custody_through_block: maybe(integer),
  custody_through_block_hash: maybe(text),
  custody_through_block_time: maybe(timestamp),
  lifetime_pnl_micro: maybe(signedMicro),
  mark_captured_at: maybe(timestamp),
  mark_run_id: maybe(text),
  position_count: maybe(integer),
  positions_value_micro: maybe(micro),
  wallet_universe_generation: maybe(integer),
});
export type SettledPnl = z.infer<typeof SettledPnlSchema>;

export const RebatesSchema = z.looseObject({
  lp_incentive_micro: maybe(micro),
  maker_rebate_micro: maybe(micro),
  vip_rebate_micro: maybe(micro),
  total_micro: maybe(micro),
});
export type Rebates = z.infer<typeof RebatesSchema>;

/** Activity (§2.5). */
export const ActivitySchema = z.looseObject({
  id: text,
  type: maybe(openEnum(['ORDER'])),
  order_id: maybe(text),
  condition_id: maybe(text),
  token_id: maybe(text),
  exchange: maybe(exchange),
  side: maybe(side),
  status: maybe(openEnum(['PENDING'])),
  fill_status: maybe(openEnum(['FULL'])),
  filled_amount_micro: maybe(micro),
  filled_shares_micro: maybe(micro),
  average_fill_price_micro: maybe(micro),
  fees_micro: maybe(micro),
  created_at: maybe(timestamp),
});
export type Activity = z.infer<typeof ActivitySchema>;

/** One page of GET /trade/v1/portfolio/activities (and, by our choice, of POST …/activities/list). */
export const ActivitiesPageSchema = z.looseObject({
  activities: z.array(ActivitySchema),
  as_of: maybe(timestamp),
  conditions: lookupMap(LookupConditionSchema),
  events: lookupMap(LookupEventSchema),
  markets: lookupMap(LookupMarketSchema),
  pagination: maybe(PaginationSchema),
});
export type ActivitiesPage = z.infer<typeof ActivitiesPageSchema>;

/** GET /trade/v1/portfolio/trades: shape not shown. Our reading: fill records plus the usual page fields. */
export const PortfolioTradesPageSchema = z.looseObject({
  as_of: maybe(timestamp),
  trades: z.array(FillSchema),
  markets: lookupMap(LookupMarketSchema),
  events: lookupMap(LookupEventSchema),
  pagination: maybe(PaginationSchema),
});
export type PortfolioTradesPage = z.infer<typeof PortfolioTradesPageSchema>;
