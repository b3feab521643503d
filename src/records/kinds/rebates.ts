import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { rebatesSchema, type RebatesPayload, type RebatesSource } from '../rebates.ts';

/** `rebates`: a REST read of the sync jobs (src/records/rebates.ts). */
export const rebates = declareKind<RebatesPayload, RebatesSource>()({
  name: 'rebates',
  schema: rebatesSchema,
  topic: { suffix: 'sync.rebates', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['rebates'],
  producer: 'sync',
  from: 'sync `rebates`: one row each',
});
