import { integer, MappingError, requiredPrice, requiredText, size, text } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { streamPayload } from '../stream-payload.ts';
import type { Mapper } from '../types.ts';

/** A public fill (`trades` channel, §6.2): one trades row; (`trade_id`, `fill_id`) is its natural key. */
export const tradeMapper: Mapper = {
  table: 'trades',
  map(record) {
    const p = streamPayload(record);
    return [
      {
        table: 'trades',
        row: {
          token_id: requiredText(p, 'token_id'),
          condition_id: text(p, 'condition_id'),
          market_id: text(p, 'market_id'),
          trade_id: text(p, 'trade_id'),
          fill_id: text(p, 'fill_id'),
          side: requiredText(p, 'side'),
          price_micro: requiredPrice(p, 'price_micro'),
          shares_micro: requiredSize(p),
          executed_at: eventMs(record, p, ['executed_at', 'ts']),
          sequence: integer(p, 'sequence'),
          exchange: text(p, 'exchange'),
        },
      },
    ];
  },
};

/** `shares_micro` (or its alias `size_micro`): present, and not negative. */
function requiredSize(p: Parameters<typeof size>[0]): string | number {
  const value = size(p, 'shares_micro') ?? size(p, 'size_micro');
  if (value === undefined || value === '') throw new MappingError('shares_micro', 'is missing');
  return value;
}
