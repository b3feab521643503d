import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { positionSchema, type PositionPayload, type PositionSource } from '../position.ts';

/** `position`: a REST read of the sync jobs (src/records/position.ts). */
export const position = declareKind<PositionPayload, PositionSource>()({
  name: 'position',
  schema: positionSchema,
  topic: { suffix: 'sync.positions', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['position_snapshots', 'position_observations'],
  producer: 'sync',
  from: 'sync `positions`: the whole read is one record, even empty',
});
