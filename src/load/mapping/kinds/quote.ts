import { integer, text } from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/** Top of book (`best_quote` channel, or derived from the book by capture): one quotes row; null = empty side. */
export const quoteMapper: Mapper<'quote'> = {
  table: 'quotes',
  map(record) {
    const p = record.payload;
    return [
      {
        table: 'quotes',
        row: {
          token_id: String(p.token_id),
          condition_id: text(p, 'condition_id'),
          quoted_at: eventMs(record, p, ['quoted_at', 'ts']),
          sequence: integer(p, 'sequence'),
          ...frameOrder(record),
          // Ranges are the schema's (src/records/quote.ts): the mapper only renames.
          best_bid_micro: integer(p, 'best_bid_micro') ?? null,
          best_ask_micro: integer(p, 'best_ask_micro') ?? null,
          best_bid_size_micro: integer(p, 'best_bid_size_micro') ?? null,
          best_ask_size_micro: integer(p, 'best_ask_size_micro') ?? null,
          source: text(p, 'source', 'ws:best_quote'),
        },
      },
    ];
  },
};
