import { arrayField, flag, integer, numberField, payloadObject, requiredText, text, timeField } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';

/** An LP-incentive read (the whole answer is one record): one lp_incentives row per market. */
export const lpIncentiveMapper: Mapper<'lp_incentive'> = {
  table: 'lp_incentives',
  map(record) {
    const p = record.payload;
    const observedAt = observedMs(record);
    const epochDate = text(p, 'epoch_date');
    const epochEndsAt = timeField(p, 'epoch_ends_at') ?? null;
    const eligible = flag(p, 'eligible');
    return arrayField(p, 'markets').map((entry, i): MappedRow => {
      const m = payloadObject(entry, `markets[${i}]`);
      return {
        table: 'lp_incentives',
        row: {
          account: record.key,
          epoch_date: epochDate,
          epoch_ends_at: epochEndsAt,
          eligible,
          market_id: requiredText(m, 'market_id'),
          question: text(m, 'question'),
          event_slug: text(m, 'event_slug'),
          event_title: text(m, 'event_title'),
          close_time: timeField(m, 'close_time') ?? null,
          phase: text(m, 'phase'),
          pool_micro: integer(m, 'pool_micro'),
          max_spread_micro: integer(m, 'max_spread_micro'),
          min_shares_micro: integer(m, 'min_shares_micro'),
          epoch_score: numberField(m, 'epoch_score'),
          market_total_score: numberField(m, 'market_total_score'),
          projected_payout_micro: integer(m, 'projected_payout_micro'),
          observed_at: observedAt,
        },
      };
    });
  },
};
