import { declareKind, MARKET_TOPIC } from '../kind.ts';
import { tradeSchema, type TradePayload } from '../trade.ts';
import { conditionOrToken } from './keys.ts';

/** `trade`: a public fill of the market socket (src/records/trade.ts). */
export const trade = declareKind<TradePayload>()({
  name: 'trade',
  schema: tradeSchema,
  topic: { suffix: 'market.trades', partitions: 6, ...MARKET_TOPIC, lane: 'short', key: conditionOrToken },
  tables: ['trades'],
  producer: 'capture',
  from: "the frame's data as capture publishes it",
});
