import type { LpIncentivesResponse } from '../api/schemas/lp-incentives.ts';
import type { Wire } from './json.ts';
import { list, loose } from './schema.ts';

/** What a `lp_incentive` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type LpIncentiveSource = LpIncentivesResponse;

/**
 * `lp_incentive` — sync.lp_incentives; stored in `lp_incentives`, one row per market. The whole answer. Made by the
 * `lp-incentives` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type LpIncentivePayload = Wire<LpIncentiveSource>;

/** An `lp_incentive` payload at the bus boundary: its markets (each checked by the loader). */
export const lpIncentiveSchema = loose({ markets: list });
