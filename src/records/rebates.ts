import type { Rebates } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';

/** What a `rebates` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type RebatesSource = Rebates;

/**
 * `rebates` — sync.rebates; stored in `rebates`. Made by the `rebates` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type RebatesPayload = Wire<RebatesSource>;
