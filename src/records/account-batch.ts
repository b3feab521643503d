import type { Batch } from '../api/schemas/batch.ts';
import type { Wire } from './json.ts';
import { list, loose, object, requiredScalar } from './schema.ts';

/** What an `account_batch` record is made from: one read of GET /trade/v1/batches/{batch_hash}, as the client parsed it
 * (src/api/schemas). */
export type AccountBatchSource = Batch;

/**
 * `account_batch` — sync.account_batches, key the account; stored in `account_batches` (one row
 * per observed state) and, when the batch carries a withdrawal, `withdrawal_states` (the
 * withdrawal's state at that read); `*_latest` views give each one now. Made by the
 * `account_batches` job. The REST item as the client parsed it, unknown fields kept; `raw` holds
 * its JSON as received.
 */
export type AccountBatchPayload = Wire<AccountBatchSource>;

/** An `account_batch` payload at the bus boundary: the batch hash; its failure, withdrawal and ops (each op checked by
 * the loader). */
export const accountBatchSchema = loose({ batch_hash: requiredScalar, failure: object, withdrawal: object, ops: list });
