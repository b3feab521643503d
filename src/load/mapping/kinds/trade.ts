import { integer, requiredText, text } from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/** A public fill (`trades` channel, §6.2): one trades row; (`trade_id`, `fill_id`) is its natural key. */
export const tradeMapper: Mapper<'trade'> = {
  table: 'trades',
  map(record) {
    const p = record.payload;
    return [
      {
        table: 'trades',
        row: {
          token_id: String(p.token_id),
          condition_id: text(p, 'condition_id'),
          market_id: text(p, 'market_id'),
          trade_id: text(p, 'trade_id'),
          fill_id: text(p, 'fill_id'),
          side: requiredText(p, 'side'),
          // Ranges are the schema's (src/records/trade.ts), which also read `size_micro`, an earlier name, as
          // `shares_micro`: the mapper only renames.
          price_micro: p.price_micro,
          shares_micro: p.shares_micro,
          executed_at: eventMs(record, p, ['executed_at', 'ts']),
          sequence: integer(p, 'sequence'),
          ...frameOrder(record),
          exchange: text(p, 'exchange'),
        },
      },
    ];
  },
};
