import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { accountBatchSchema, type AccountBatchPayload, type AccountBatchSource } from '../account-batch.ts';

/** `account_batch`: a REST read of the sync jobs (src/records/account-batch.ts). */
export const accountBatch = declareKind<AccountBatchPayload, AccountBatchSource>()({
  name: 'account_batch',
  schema: accountBatchSchema,
  topic: { suffix: 'sync.account_batches', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['account_batches', 'withdrawal_states'],
  producer: 'sync',
  from: 'sync `account_batches`: the batch of §2.4, one row per observed state (`account_batches_latest`) + `withdrawal_states` when it carries a withdrawal',
});
