import { declareKind, MARKET_TOPIC } from '../kind.ts';
import { priceSchema, type PricePayload } from '../price.ts';

// Keyed by symbol, so one asset's prices stay in order; few symbols, few partitions.
const PRICE_TOPIC = {
  partitions: 3,
  ...MARKET_TOPIC,
  lane: 'bulk',
  key: { what: 'symbol', of: (p: PricePayload) => p.symbol },
} as const;
const FROM =
  'capture: the price event as sent plus `{symbol, price_micro, price_text, observed_at, event_id}`, one row per event';

/** `price`: an event of the price stream (src/records/price.ts). */
export const price = declareKind<PricePayload>()({
  name: 'price',
  schema: priceSchema,
  topic: { suffix: 'prices.stream', ...PRICE_TOPIC },
  tables: ['prices'],
  producer: 'capture',
  from: FROM,
});

/** `oracle_pro_price`: an event of the oracle-pro price stream (src/records/price.ts). */
export const oracleProPrice = declareKind<PricePayload>()({
  name: 'oracle_pro_price',
  schema: priceSchema,
  topic: { suffix: 'prices.oracle_pro', ...PRICE_TOPIC },
  tables: ['oracle_pro_prices'],
  producer: 'capture',
  from: FROM,
});
