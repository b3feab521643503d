import { declareKind, SYNC_TOPIC } from '../kind.ts';
import { marketSchema, type MarketPayload, type MarketSource } from '../market.ts';
import { byField } from './keys.ts';

/** `market`: a REST read of the sync jobs (src/records/market.ts). */
export const market = declareKind<MarketPayload, MarketSource>()({
  name: 'market',
  schema: marketSchema,
  topic: { suffix: 'sync.markets', ...SYNC_TOPIC, key: byField('condition_id') },
  tables: ['markets', 'outcomes'],
  producer: 'sync',
  from: 'sync `catalogue`: `markets` (with the display fields people filter on) + `outcomes`',
});
