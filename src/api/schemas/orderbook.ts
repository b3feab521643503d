import { z } from 'zod';
import { integer, maybe, micro, text, timestamp } from './common.ts';

/**
 * GET /trade/v1/orderbook/{token_id}: the interface does not show the shape. Our reading:
 * `{token_id, bids: [{price_micro, size_micro}], asks: [...], sequence?, as_of?}`. A level without
 * a price or size fails loudly rather than being read as zero.
 */
export const BookLevelSchema = z.looseObject({ price_micro: micro, size_micro: micro });
export type BookLevel = z.infer<typeof BookLevelSchema>;

export const OrderbookSchema = z.looseObject({
  token_id: maybe(text),
  bids: z.array(BookLevelSchema),
  asks: z.array(BookLevelSchema),
  sequence: maybe(z.union([integer, text])),
  as_of: maybe(timestamp),
});
export type Orderbook = z.infer<typeof OrderbookSchema>;
