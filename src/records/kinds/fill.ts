import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { fillSchema, type FillPayload, type FillSource } from '../fill.ts';

/** `fill`: a REST read of the sync jobs (src/records/fill.ts). */
export const fill = declareKind<FillPayload, FillSource>()({
  name: 'fill',
  schema: fillSchema,
  topic: { suffix: 'sync.fills', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['fill_observations'],
  producer: 'sync',
  from: 'sync list jobs',
});
