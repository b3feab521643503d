import type { Fill } from '../api/schemas/order.ts';
import type { Wire } from './json.ts';

/** What a `fill` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type FillSource = Fill;

/**
 * `fill` — sync.fills; stored in `fill_observations`. Made by the `portfolio-trades` and `order-trades` jobs.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type FillPayload = Wire<FillSource>;
