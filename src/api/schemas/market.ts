import { z } from 'zod';
import {
  exchange,
  flag,
  freeMap,
  integer,
  maybe,
  micro,
  number,
  openEnum,
  signedMicro,
  text,
  untyped,
} from './common.ts';
import { LpIncentiveSchema } from './lp-incentives.ts';

/**
 * Display fields are typed where the interface names a type or the name leaves no doubt (URLs,
 * labels); those it leaves open (reference and band values, feed ids) are kept as received.
 */
const OutcomeDisplaySchema = z.looseObject({
  label: maybe(text),
  kind: maybe(text),
  short_label: maybe(text),
  team_side: maybe(text),
  side: maybe(text),
  threshold: maybe(number),
  bet_slip_title: maybe(text),
  resolution_label: maybe(text),
  service_cms: maybe(freeMap),
});

/** Outcome (§2.9): one tradable token. `spread_micro` is a difference of prices, so it may be negative. */
export const OutcomeSchema = z.looseObject({
  id: maybe(text),
  index: maybe(integer),
  label: maybe(text),
  short_label: maybe(text),
  token_id: text,
  price_micro: maybe(micro),
  best_bid_micro: maybe(micro),
  best_ask_micro: maybe(micro),
  spread_micro: maybe(signedMicro),
  resolution_price_micro: maybe(micro),
  bet_slip_title: maybe(text),
  resolution_label: maybe(text),
  kind: maybe(openEnum(['team_home'])),
  team_side: maybe(openEnum(['home'])),
  side: maybe(openEnum(['left'])),
  threshold: maybe(number),
  display: maybe(OutcomeDisplaySchema),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

export const MarketDisplaySchema = z.looseObject({
  image_url: maybe(text),
  portfolio_title: maybe(text),
  description: maybe(text),
  resolution_source: maybe(text),
  resolution_criteria: maybe(text),
  resolution_sources: maybe(z.array(z.looseObject({ title: maybe(text), url: maybe(text) }))),
  player_name: maybe(text),
  stat_type: maybe(text),
  liquidity: maybe(number),
  cadence_seconds: maybe(number),
  series_color: maybe(text),
  reference_price: untyped,
  currency: maybe(text),
  reference_at: maybe(text),
  observe_at: maybe(text),
  band_index: maybe(number),
  band_lower: untyped,
  band_upper: untyped,
  band_label: maybe(text),
  oracle_feed_id: untyped,
  oracle_benchmark_symbol: maybe(text),
  charting_symbol: maybe(text),
  oracle_pro_symbol: maybe(text),
  security_symbol: maybe(text),
  security_provider: maybe(text),
  game_number: maybe(integer),
  is_three_way: maybe(flag),
  three_way_role: maybe(text),
  display_label: maybe(text),
  service_cms: maybe(freeMap),
});
export type MarketDisplay = z.infer<typeof MarketDisplaySchema>;

/** The values §2.9/§3.2 show; any other string is kept (open enum): a market's state is not a sign of whether it
 * trades. */
export const MARKET_STATES = ['DRAFT', 'PROVISIONED'] as const;
/** As §3.2 writes them (`proposed` in lower case); any other string, or case, is kept as sent. */
export const RESOLUTION_STATUSES = ['ACTIVE', 'proposed', 'DISPUTED', 'RESOLVED', 'VOID'] as const;

/** Market (§2.9). `liquidity` is a string here (a number in `display`); `_micro` fields are bigints. */
export const MarketSchema = z.looseObject({
  id: text,
  slug: maybe(text),
  question: maybe(text),
  condition_id: maybe(text),
  neg_risk_id: maybe(text),
  state: maybe(openEnum(MARKET_STATES)),
  exchange: maybe(exchange),
  display_type: maybe(openEnum(['BINARY'])),
  source_market_type: maybe(text),
  line: maybe(text),
  display_label: maybe(text),
  resolution_outcome: maybe(text),
  is_accepting_orders: maybe(flag),
  halted_at: maybe(text),
  halted_reason: maybe(text),
  resolved_at: maybe(text),
  archived_at: maybe(text),
  volume_micro: maybe(micro),
  volume_24h_micro: maybe(micro),
  liquidity: maybe(text),
  tick_size_micro: maybe(micro),
  min_order_size_micro: maybe(micro),
  engine_config: maybe(
    z.looseObject({
      tick_size: maybe(integer),
      price_scale: maybe(integer),
      size_scale: maybe(integer),
      min_price: maybe(integer),
      max_price: maybe(integer),
    }),
  ),
  resolution_status: maybe(openEnum(RESOLUTION_STATUSES)),
  resolution: maybe(
    z.looseObject({
      source: maybe(text),
      reference_value: untyped,
      observed_value: untyped,
      observed_at: maybe(text),
    }),
  ),
  three_way_role: maybe(openEnum(['home'])),
  is_three_way: maybe(flag),
  game_number: maybe(integer),
  outcomes: maybe(z.array(OutcomeSchema)),
  lp_incentive: maybe(LpIncentiveSchema),
  display: maybe(MarketDisplaySchema),
});
export type Market = z.infer<typeof MarketSchema>;
