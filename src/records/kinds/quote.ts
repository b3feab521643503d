import { declareKind, MARKET_TOPIC } from '../kind.ts';
import { quoteSchema, type QuotePayload } from '../quote.ts';
import { conditionOrToken } from './keys.ts';

/** `quote`: a best bid and ask of the market socket (src/records/quote.ts). */
export const quote = declareKind<QuotePayload>()({
  name: 'quote',
  schema: quoteSchema,
  topic: { suffix: 'market.quotes', partitions: 6, ...MARKET_TOPIC, lane: 'short', key: conditionOrToken },
  tables: ['quotes'],
  producer: 'capture',
  from: "the frame's data",
});
