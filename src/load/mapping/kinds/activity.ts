import { integer, text, timeField } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/** A portfolio activity as read: one activity_observations row (the `activities` view shows its newest state). */
export const activityMapper: Mapper<'activity'> = {
  table: 'activity_observations',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    return [
      {
        table: 'activity_observations',
        row: {
          account: record.key,
          activity_id: String(p.id),
          type: text(p, 'type'),
          order_id: text(p, 'order_id'),
          condition_id: text(p, 'condition_id'),
          token_id: text(p, 'token_id'),
          exchange: text(p, 'exchange'),
          side: text(p, 'side'),
          status: text(p, 'status'),
          fill_status: text(p, 'fill_status'),
          filled_amount_micro: integer(p, 'filled_amount_micro'),
          filled_shares_micro: integer(p, 'filled_shares_micro'),
          average_fill_price_micro: integer(p, 'average_fill_price_micro') ?? null,
          fees_micro: integer(p, 'fees_micro'),
          created_at: timeField(p, 'created_at') ?? observedAt,
          observed_at: observedAt,
        },
      },
    ];
  },
};
