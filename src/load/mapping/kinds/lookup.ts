import { objectField, text } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/**
 * One entry of a list page's lookup map (markets, events, conditions; §2.5): one lookups row. The
 * `display` objects, whose contents the interface does not show, are kept as their JSON.
 */
export const lookupMapper: Mapper<'lookup'> = {
  table: 'lookups',
  map(record) {
    const p = record.payload;
    const entry = p.entry;
    const display = objectField(entry, 'display');
    return [
      {
        table: 'lookups',
        row: {
          account: record.key,
          map: String(p.map),
          lookup_key: String(p.key),
          list: text(p, 'list'),
          market_id: text(entry, 'market_id'),
          market_title: text(entry, 'market_title'),
          event_slug: text(entry, 'event_slug'),
          event_title: text(entry, 'event_title'),
          logo_url: text(entry, 'logo_url'),
          neg_risk_id: text(entry, 'neg_risk_id'),
          outcome_name: text(entry, 'outcome_name'),
          state: text(entry, 'state'),
          display: display === undefined ? '' : JSON.stringify(display),
          observed_at: observedMs(record),
        },
      },
    ];
  },
};
