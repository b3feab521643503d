import { integer } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/** Rebate totals as read (no venue time: the receive time is the observation's): one rebates row. */
export const rebatesMapper: Mapper<'rebates'> = {
  table: 'rebates',
  map(record) {
    const p = record.payload;
    return [
      {
        table: 'rebates',
        row: {
          account: record.key,
          lp_incentive_micro: integer(p, 'lp_incentive_micro'),
          maker_rebate_micro: integer(p, 'maker_rebate_micro'),
          vip_rebate_micro: integer(p, 'vip_rebate_micro'),
          total_micro: integer(p, 'total_micro'),
          observed_at: observedMs(record),
        },
      },
    ];
  },
};
