import { integer, requiredInteger, requiredText, text } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { streamPayload } from '../stream-payload.ts';
import type { Mapper } from '../types.ts';

/** A public trade (`trades` channel): one trades row. */
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
          trade_id: text(p, 'trade_id'),
          side: requiredText(p, 'side'),
          price_micro: requiredInteger(p, 'price_micro'),
          shares_micro: integer(p, 'shares_micro') ?? requiredInteger(p, 'size_micro'),
          executed_at: eventMs(record, p, ['executed_at', 'ts']),
          sequence: integer(p, 'sequence'),
          exchange: text(p, 'exchange'),
        },
      },
    ];
  },
};
