import type { EventDetail, EventListItem } from '../api/schemas/event.ts';
import type { Wire } from './json.ts';
import { list, loose, object, requiredScalar } from './schema.ts';

/** What a `event` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type EventSource = EventListItem | EventDetail;

/**
 * `event` — sync.events, key the event id; stored in `events`. A listing item or an event detail (the detail's markets
 * come as market records). Made by the `catalogue` job.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type EventPayload = Wire<EventSource>;

/** An `event` payload at the bus boundary: its id; the nested objects and lists the loader reads (each entry checked
 * there). */
export const eventSchema = loose({
  id: requiredScalar,
  primary_category: object,
  game_state: object,
  main_market_group: object,
  categories: list,
  markets: list,
});
