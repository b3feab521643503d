import type { PositionsResponse } from '../api/schemas/portfolio.ts';
import type { Wire } from './json.ts';
import { list, loose } from './schema.ts';

/** What a `position` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type PositionSource = PositionsResponse;

/**
 * `position` — sync.positions; stored in `position_snapshots` + `positions`. The whole read, even empty. Made by the
 * `positions` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type PositionPayload = Wire<PositionSource>;

/** A `position` payload at the bus boundary: the positions (each checked by the loader) and the exchanges unavailable.
 */
export const positionSchema = loose({ positions: list, unavailable_exchanges: list });
