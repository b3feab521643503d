import { observedMs } from '../record-times.ts';
import { sourceOf } from '../sources.ts';
import type { Mapper } from '../types.ts';
import { fillRow } from './account-rows.ts';

/** A fill as read by a sync job (an order's trades, the portfolio trades): one fill_observations row. */
export const fillMapper: Mapper<'fill'> = {
  table: 'fill_observations',
  map(record) {
    return [
      {
        table: 'fill_observations',
        row: fillRow(record.payload, record.key, sourceOf(record, 'rest:portfolio/trades'), observedMs(record)),
      },
    ];
  },
};
