import type { Unread } from './json.ts';
import { z } from 'zod';
import { inRange, integer, loose, requiredInteger, requiredScalar, scalar, streamData } from './schema.ts';

/**
 * `trade` — topic market.trades, key condition_id (the token while unknown). One public fill
 * (§6.2): the `trades` frame's data, `_micro` values as canonical decimal strings, unknown fields
 * kept. Made by capture (src/capture/market/market-records.ts); stored in `trades`.
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

/**
 * A `trade` payload at the bus boundary: ids and `_micro` amounts as text or numbers; the whole
 * frame instead of its data (earlier records); `size_micro`, an earlier name of `shares_micro`,
 * read as it. Times are parsed by the loader (src/load/mapping/fields.ts).
 */
export const tradeSchema = streamData(
  loose({
    token_id: requiredScalar,
    condition_id: scalar,
    market_id: scalar,
    trade_id: scalar,
    fill_id: scalar,
    side: scalar,
    price_micro: requiredInteger,
    shares_micro: integer,
    size_micro: integer,
    sequence: integer,
    exchange: scalar,
  })
    // A trade happens at a price strictly inside (0, 1), for at least one micro-share.
    .superRefine(inRange(['price_micro'], ['shares_micro', 'size_micro'], 1))
    .transform((p, ctx) => {
      if (p.shares_micro === undefined || p.shares_micro === null) p.shares_micro = p.size_micro;
      if (p.shares_micro === undefined || p.shares_micro === null || p.shares_micro === '') {
        ctx.issues.push({ code: 'custom', path: ['shares_micro'], message: 'is missing', input: p.shares_micro });
        return z.NEVER;
      }
      return p as typeof p & { shares_micro: string | number };
    }),
);
