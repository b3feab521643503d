import { arrayField, flag, integer, isObject, objectField, text, timeField } from '../fields.ts';
import { observedMs } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/**
 * A catalogue event, from a list page or a detail read (the detail has `markets`): one events row.
 * Its markets come as market records of their own (with their outcomes), so they are not mapped
 * from here twice; the detail's market ids are kept in `market_ids`.
 */
export const eventMapper: Mapper<'event'> = {
  table: 'events',
  map(record) {
    const p = record.payload;
    const isDetail = p.markets !== undefined || p.categories !== undefined;
    const primary = objectField(p, 'primary_category');
    const match = objectField(objectField(p, 'game_state') ?? {}, 'match');
    return [
      {
        table: 'events',
        row: {
          event_id: String(p.id),
          slug: text(p, 'slug'),
          title: text(p, 'title'),
          event_type: text(p, 'event_type'),
          state: text(p, 'state'),
          resolution_status: text(p, 'resolution_status'),
          is_accepting_orders: flag(p, 'is_accepting_orders'),
          is_live: flag(p, 'is_live'),
          is_group_root: flag(p, 'is_group_root'),
          start_time: timeField(p, 'start_time') ?? null,
          end_time: timeField(p, 'end_time') ?? null,
          volume_micro: integer(p, 'volume_micro'),
          main_market_id: text(p, 'main_market_id'),
          neg_risk_id: text(objectField(p, 'main_market_group') ?? {}, 'neg_risk_id'),
          primary_category_slug: primary ? text(primary, 'slug') : '',
          primary_category_label: primary ? text(primary, 'label') : '',
          category_slugs: idsOf(arrayField(p, 'categories'), 'slug'),
          market_count: integer(p, 'market_count') ?? null,
          market_ids: idsOf(arrayField(p, 'markets'), 'id'),
          disputed_market_count: integer(p, 'disputed_market_count') ?? null,
          resolved_market_count: integer(p, 'resolved_market_count') ?? null,
          sport_group: text(p, 'sport_group'),
          game_lifecycle: match ? text(match, 'lifecycle') : '',
          live_label: match ? text(match, 'live_label') : '',
          is_detail: isDetail,
          observed_at: observedMs(record),
        },
      },
    ];
  },
};

/** The `field` of each object in a list (a plain string entry is taken as the id itself). */
function idsOf(list: ReturnType<typeof arrayField>, field: string): string[] {
  const ids: string[] = [];
  for (const entry of list) {
    const id = isObject(entry) ? entry[field] : entry;
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}
