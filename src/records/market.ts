import type { Market } from '../api/schemas/market.ts';
import type { Wire } from './json.ts';
import { list, loose, object, requiredScalar } from './schema.ts';

/** What a `market` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type MarketSource = Market & { event_id: unknown };

/**
 * `market` — sync.markets, key condition_id; stored in `markets` + `outcomes`. A market of an event detail, with its
 * event's id added when the venue sent none. Made by the `catalogue` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type MarketPayload = Wire<MarketSource>;

/** A `market` payload at the bus boundary: its id; outcomes (each checked by the loader) and the nested objects it
 * reads. */
export const marketSchema = loose({
  id: requiredScalar,
  outcomes: list,
  display: object,
  engine_config: object,
  resolution: object,
  lp_incentive: object,
});
