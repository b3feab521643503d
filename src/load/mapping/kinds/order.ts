import { observedMs } from '../record-times.ts';
import { sourceOf } from '../sources.ts';
import type { Mapper } from '../types.ts';
import { orderRow } from './account-rows.ts';

/** An order as read by a sync job (order list, open orders): one orders row. */
export const orderMapper: Mapper<'order'> = {
  table: 'orders',
  map(record) {
    return [
      {
        table: 'orders',
        row: orderRow(record.payload, record.key, sourceOf(record, 'rest:orders/list'), observedMs(record)),
      },
    ];
  },
};
