import type { Fill } from '../api/schemas/order.ts';
import type { Wire } from './json.ts';
import { integer, loose, scalar } from './schema.ts';

/** What a `fill` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type FillSource = Fill;

/**
 * `fill` — sync.fills; stored in `fill_observations`. Made by the `portfolio-trades` and `order-trades` jobs.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type FillPayload = Wire<FillSource>;

/**
 * A `fill` payload at the bus boundary: the fill's ids, token, side, price and shares, each
 * optional as the api's Fill has them (the loader requires an id, the token, side, price and shares
 * of the fills it stores, and names the one missing).
 */
export const fillSchema = loose({
  fill_id: scalar,
  trade_id: scalar,
  token_id: scalar,
  side: scalar,
  price_micro: integer,
  shares_micro: integer,
});
