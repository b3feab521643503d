import type { Unread } from './json.ts';
import { loose, object, scalar, streamData } from './schema.ts';

/**
 * `account_event` — topic account.events, key the account label. The account socket's
 * `account_events` frame data, `_micro` values normalised at any depth, plus `account` (the
 * frames do not name it). Kinds as the venue sends them (`order_accepted`, `order_rejected`,
 * `order_cancelled`, `fill`, …); the nested `order`, `fill` and `position` objects are the REST
 * shapes. Made by capture (src/capture/account/private-streams.ts); stored in `account_events` (and
 * `orders`, `fill_observations`).
 */
export interface AccountEventPayload extends Unread {
  account: string;
  kind?: string;
}

/**
 * An `account_event` payload at the bus boundary: any kind (optional, as the type has it: the
 * loader requires one); the order, fill or position it names read by the loader; the whole frame
 * read through to its data.
 */
export const accountEventSchema = streamData(
  loose({ kind: scalar, order: object, fill: object, position: object, reason: scalar, condition_id: scalar }),
);
