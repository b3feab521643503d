import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { activitySchema, type ActivityPayload, type ActivitySource } from '../activity.ts';

/** `activity`: a REST read of the sync jobs (src/records/activity.ts). */
export const activity = declareKind<ActivityPayload, ActivitySource>()({
  name: 'activity',
  schema: activitySchema,
  topic: { suffix: 'sync.activities', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['activity_observations'],
  producer: 'sync',
  from: 'sync list jobs',
});
