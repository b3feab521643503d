import { z } from 'zod';
import { maybe, opaqueObject, text } from './common.ts';

/**
 * Lookup maps carried by list responses (§2.5), keyed by market key, event key or condition id.
 * The contents of their `display` objects are not shown: any object is kept as is.
 */
export const LookupMarketSchema = z.looseObject({
  market_id: maybe(text),
  market_title: maybe(text),
  event_slug: maybe(text),
  logo_url: maybe(text),
  neg_risk_id: maybe(text),
  outcome_name: maybe(text),
  state: maybe(text),
  display: maybe(z.looseObject({ market: maybe(opaqueObject), outcome: maybe(opaqueObject) })),
});
export type LookupMarket = z.infer<typeof LookupMarketSchema>;

export const LookupEventSchema = z.looseObject({
  event_title: maybe(text),
  display: maybe(z.looseObject({ event: maybe(opaqueObject) })),
});
export type LookupEvent = z.infer<typeof LookupEventSchema>;

export const LookupConditionSchema = z.looseObject({
  market_id: maybe(text),
  market_title: maybe(text),
  event_slug: maybe(text),
  logo_url: maybe(text),
  display: maybe(z.looseObject({ market: maybe(opaqueObject) })),
});
export type LookupCondition = z.infer<typeof LookupConditionSchema>;

export const lookupMap = <Schema extends z.ZodType>(schema: Schema) => maybe(z.record(z.string(), schema));
