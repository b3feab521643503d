import { observedMs } from '../record-times.ts';
import { sourceOf } from '../sources.ts';
import type { Mapper } from '../types.ts';
import { orderRow } from './account-rows.ts';

/** An order as read by a sync job (order list, open orders): one orders row. */
export const orderMapper: Mapper<'order'> = {
  table: 'order_observations',
  map(record) {
    return [
      {
        table: 'order_observations',
        row: orderRow(record.payload, record.key, sourceOf(record, 'rest:orders/list'), observedMs(record)),
      },
    ];
  },
};
