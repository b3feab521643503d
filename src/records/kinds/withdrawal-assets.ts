import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import {
  withdrawalAssetsSchema,
  type WithdrawalAssetsPayload,
  type WithdrawalAssetsSource,
} from '../withdrawal-assets.ts';

/** `withdrawal_assets`: a REST read of the sync jobs (src/records/withdrawal-assets.ts). */
export const withdrawalAssets = declareKind<WithdrawalAssetsPayload, WithdrawalAssetsSource>()({
  name: 'withdrawal_assets',
  schema: withdrawalAssetsSchema,
  topic: { suffix: 'sync.withdrawal_assets', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['withdrawal_assets'],
  producer: 'sync',
  from: 'sync `withdrawal_assets`: one row per asset',
});
