import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { lpIncentiveSchema, type LpIncentivePayload, type LpIncentiveSource } from '../lp-incentive.ts';

/** `lp_incentive`: a REST read of the sync jobs (src/records/lp-incentive.ts). */
export const lpIncentive = declareKind<LpIncentivePayload, LpIncentiveSource>()({
  name: 'lp_incentive',
  schema: lpIncentiveSchema,
  topic: { suffix: 'sync.lp_incentives', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['lp_incentives'],
  producer: 'sync',
  from: 'sync `lp_incentives`: one row per market',
});
