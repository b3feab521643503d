import { z } from 'zod';
import { flag, integer, maybe, micro, text, timestamp } from './common.ts';

/**
 * GET /trade/v1/orderbook/{token_id}: the interface does not show the shape. Our reading:
 * `{token_id, bids: [level], asks: [level], sequence?, as_of?}` where a level is a price and a
 * share quantity. The interface calls share quantities `shares_micro` everywhere else, so that is
 * the name we read; `size_micro` is accepted as an alias. A level without either fails loudly
 * rather than being read as zero, and so does a price outside (0, 1).
 */

/** One unit of a price (1.0) in micro-units. */
const PRICE_ONE_MICRO = 1_000_000n;

export const BookLevelSchema = z
  .looseObject({ price_micro: micro, shares_micro: maybe(micro), size_micro: maybe(micro) })
  .transform((level, ctx) => {
    // A level's price lies strictly inside (0, 1): anything else is no price this venue can quote.
    if (level.price_micro <= 0n || level.price_micro >= PRICE_ONE_MICRO) {
      ctx.issues.push({
        code: 'custom',
        message: `price ${level.price_micro} is outside (0, 1)`,
        path: ['price_micro'],
        input: level,
      });
      return z.NEVER;
    }
    const shares = level.shares_micro ?? level.size_micro;
    if (shares === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'a book level needs shares_micro (or size_micro)',
        path: ['shares_micro'],
        input: level,
      });
      return z.NEVER;
    }
    return { ...level, shares_micro: shares };
  });
export type BookLevel = z.infer<typeof BookLevelSchema>;

export const OrderbookSchema = z.looseObject({
  token_id: maybe(text),
  condition_id: maybe(text),
  market_id: maybe(text),
  bids: z.array(BookLevelSchema),
  asks: z.array(BookLevelSchema),
  sequence: maybe(z.union([integer, text])),
  as_of: maybe(timestamp),
  tick_size_micro: maybe(micro),
  min_order_size_micro: maybe(micro),
  is_accepting_orders: maybe(flag),
});
export type Orderbook = z.infer<typeof OrderbookSchema>;
