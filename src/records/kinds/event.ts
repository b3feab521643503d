import { declareKind, SYNC_TOPIC } from '../kind.ts';
import { eventSchema, type EventPayload, type EventSource } from '../event.ts';
import { byField } from './keys.ts';

/** `event`: a REST read of the sync jobs (src/records/event.ts). */
export const event = declareKind<EventPayload, EventSource>()({
  name: 'event',
  schema: eventSchema,
  topic: { suffix: 'sync.events', ...SYNC_TOPIC, key: byField('id', 'event id') },
  tables: ['events'],
  producer: 'sync',
  from: "sync `catalogue`: list item or detail (the detail's markets come as market records)",
});
