import type { SettledPnl } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';
import { integer, loose } from './schema.ts';

/** What a `pnl_settled` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type PnlSettledSource = SettledPnl;

/**
 * `pnl_settled` — sync.pnl; stored in `pnl_settled`. Made by the `pnl` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type PnlSettledPayload = Wire<PnlSettledSource>;

/** A `pnl_settled` payload at the bus boundary: every field optional (read by the loader), amounts as text or numbers.
 */
export const pnlSettledSchema = loose({
  collateral_micro: integer,
  lifetime_pnl_micro: integer,
  positions_value_micro: integer,
});
