import type { Unread } from './json.ts';

/**
 * `portfolio_sync` — topic account.portfolio, key the account label. The portfolio SSE event as
 * sent (§6.4), `_micro` values normalised, plus `account`: `positions` is the positions response
 * (`unavailable_exchanges` included), `summary.summaries[]` the summaries. Made by capture
 * (src/capture/private-streams.ts); stored in `position_snapshots`, `positions`, `portfolio_summaries`.
 */
export interface PortfolioSyncPayload extends Unread {
  account: string;
  type?: string;
  seq?: number | string;
  stream_id?: string;
  positions: Unread;
  summary?: Unread;
}
