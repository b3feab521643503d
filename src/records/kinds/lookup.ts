import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { lookupSchema, type LookupPayload, type LookupSource } from '../lookup.ts';

/** `lookup`: a REST read of the sync jobs (src/records/lookup.ts). */
export const lookup = declareKind<LookupPayload, LookupSource>()({
  name: 'lookup',
  schema: lookupSchema,
  topic: { suffix: 'sync.lookups', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['lookups'],
  producer: 'sync',
  from: "sync list jobs: `{list, map, key, entry}`, one entry of a page's `markets{}`, `events{}` or `conditions{}`; one row per entry observed (`lookups_latest`)",
});
