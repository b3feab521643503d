import type { Activity } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';
import { loose, requiredScalar } from './schema.ts';

/** What a `activity` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type ActivitySource = Activity;

/**
 * `activity` — sync.activities; stored in `activity_observations`. Made by the `activities` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type ActivityPayload = Wire<ActivitySource>;

/** An `activity` payload at the bus boundary: its id (other fields read by the loader, tolerantly). */
export const activitySchema = loose({ id: requiredScalar });
