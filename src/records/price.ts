import type { Unread } from './json.ts';
import { loose, requiredInteger, requiredScalar, scalar, streamData } from './schema.ts';

/**
 * `price` — topic prices.stream, key the symbol — and `oracle_pro_price` — topic
 * prices.oracle_pro, key the symbol. One event of a price feed (§4.2 "Streams": SSE
 * `/api/v1/prices/stream` and `/api/v1/prices/oracle-pro/stream`), whose shape the interface leaves
 * "not shown": the event's JSON as sent (unknown fields kept), plus what capture read from it —
 * the price as micro-units, and the SSE event's number. Made by capture
 * (src/capture/prices/price-streams.ts); stored in `prices` and `oracle_pro_prices`.
 */
export interface PricePayload extends Unread {
  /** The asset the price is for (BTC, ETH…), as sent. */
  symbol: string;
  /** The price in micro-units, a decimal string (half-even rounded when the venue sent more than 6 decimals). */
  price_micro: string;
  /** The price exactly as the venue wrote it (decimal text, or a number's text). */
  price_text: string;
  /** The venue's time of the observation (`observed_at`, or `ts`), when it gave one. */
  observed_at?: string;
  source?: string;
  /** The SSE event's `id:` (the venue's number of the event on its connection), when it had one. */
  event_id?: string;
}

/** A `price` or `oracle_pro_price` payload at the bus boundary (`price`: an earlier name of `price_text`); the whole
 * frame read through to its data. */
export const priceSchema = streamData(
  loose({
    symbol: requiredScalar,
    price_micro: requiredInteger,
    price_text: scalar,
    price: scalar,
    source: scalar,
    event_id: scalar,
  }),
);
