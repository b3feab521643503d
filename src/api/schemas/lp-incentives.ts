import { z } from 'zod';
import { flag, maybe, micro, microInteger, number, openEnum, text } from './common.ts';

/** Market-level `lp_incentive` on markets in event detail (§2.7). */
export const LpIncentiveSchema = z.looseObject({
  pool_micro: maybe(micro),
  max_spread_micro: maybe(microInteger),
  min_shares_micro: maybe(micro),
});
export type LpIncentive = z.infer<typeof LpIncentiveSchema>;

/** One market of the LP-incentive response. The scores are plain numbers: they are not money. */
export const LpIncentiveMarketSchema = z.looseObject({
  market_id: text,
  question: maybe(text),
  event_slug: maybe(text),
  event_title: maybe(text),
  logo_url: maybe(text),
  close_time: maybe(text),
  phase: maybe(openEnum(['ACTIVE'])),
  pool_micro: maybe(micro),
  max_spread_micro: maybe(microInteger),
  min_shares_micro: maybe(micro),
  epoch_score: maybe(number),
  market_total_score: maybe(number),
  projected_payout_micro: maybe(micro),
});
export type LpIncentiveMarket = z.infer<typeof LpIncentiveMarketSchema>;

export const LpIncentivesResponseSchema = z.looseObject({
  eligible: maybe(flag),
  epoch_date: maybe(text),
  epoch_ends_at: maybe(text),
  markets: z.array(LpIncentiveMarketSchema),
});
export type LpIncentivesResponse = z.infer<typeof LpIncentivesResponseSchema>;
