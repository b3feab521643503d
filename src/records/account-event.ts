import type { Unread } from './json.ts';

/**
 * `account_event` — topic account.events, key the account label. The account socket's
 * `account_events` frame data, `_micro` values normalised at any depth, plus `account` (the
 * frames do not name it). Kinds as the venue sends them (`order_accepted`, `order_rejected`,
 * `order_cancelled`, `fill`, …); the nested `order`, `fill` and `position` objects are the REST
 * shapes. Made by capture (src/capture/private-streams.ts); stored in `account_events` (and
 * `orders`, `fill_observations`).
 */
export interface AccountEventPayload extends Unread {
  account: string;
  kind?: string;
}
