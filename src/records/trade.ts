import type { Unread } from './json.ts';

/**
 * `trade` — topic market.trades, key condition_id (the token while unknown). One public fill
 * (§6.2): the `trades` frame's data, `_micro` values as canonical decimal strings, unknown fields
 * kept. Made by capture (src/capture/market-records.ts); stored in `trades`.
 */
export interface TradePayload extends Unread {
  token_id: string;
  price_micro: string;
  shares_micro: string;
  /** The venue's trade id; (`trade_id`, `fill_id`) is the natural key (src/api/trade-key.ts). */
  trade_id?: string;
  fill_id?: string;
  condition_id?: string;
  market_id?: string;
  /** BUY, SELL (other values kept). */
  side?: string;
  /** Also the record's venue_time (the frame's ts when absent). */
  executed_at?: string;
  sequence?: number | string;
  exchange?: string;
  kind?: string;
}
