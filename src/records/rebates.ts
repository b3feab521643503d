import type { Rebates } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';
import { integer, loose } from './schema.ts';

/** What a `rebates` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type RebatesSource = Rebates;

/**
 * `rebates` — sync.rebates; stored in `rebates`. Made by the `rebates` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type RebatesPayload = Wire<RebatesSource>;

/** A `rebates` payload at the bus boundary: the totals, as text or numbers, each optional. */
export const rebatesSchema = loose({
  lp_incentive_micro: integer,
  maker_rebate_micro: integer,
  vip_rebate_micro: integer,
  total_micro: integer,
});
