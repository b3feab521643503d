import type { Unread } from './json.ts';
import { loose, object, scalar, streamData } from './schema.ts';

/**
 * `portfolio_sync` — topic account.portfolio, key the account label. The portfolio SSE event as
 * sent (§6.4), `_micro` values normalised, plus `account`: `positions` is the positions response
 * (`unavailable_exchanges` included), `summary.summaries[]` the summaries. Made by capture
 * (src/capture/account/private-streams.ts); stored in `position_snapshots`, `positions`, `portfolio_summaries`.
 */
export interface PortfolioSyncPayload extends Unread {
  account: string;
  type?: string;
  seq?: number | string;
  stream_id?: string;
  positions: Unread;
  summary?: Unread;
}

/** A `portfolio_sync` payload at the bus boundary: positions and summaries read by the loader; the whole SSE event read
 * through to its data. */
export const portfolioSyncSchema = streamData(
  loose({ positions: object, summary: object, stream_id: scalar, seq: scalar }),
);
