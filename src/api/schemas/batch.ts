import { z } from 'zod';
import { chainId, integer, maybe, microInteger, openEnum, text, timestamp } from './common.ts';
import { FailureSchema } from './failure.ts';

/** Withdrawal object inside an account batch (§2.4). Only the values "seen" are listed; others are kept. */
export const WithdrawalSchema = z.looseObject({
  state: maybe(openEnum(['QUEUED'])),
  updated_at: maybe(timestamp),
  source: maybe(
    z.looseObject({
      chain_id: maybe(chainId),
      status: maybe(openEnum(['QUEUED'])),
      tx_hash: maybe(text),
      confirmed_at: maybe(timestamp),
    }),
  ),
  destination: maybe(
    z.looseObject({
      chain_id: maybe(chainId),
      status: maybe(openEnum(['WAITING'])),
      path: maybe(openEnum(['SPOKE_POOL'])),
      tx: maybe(text),
      delivered_at: maybe(timestamp),
    }),
  ),
});
export type Withdrawal = z.infer<typeof WithdrawalSchema>;

/** Batch operation (`ops[]` item). Other op kinds and their fields are not shown: kept verbatim. */
export const BatchOpSchema = z.looseObject({
  kind: openEnum(['SPLIT']),
  condition_id: maybe(text),
  market_id: maybe(text),
  shares_micro: maybe(microInteger),
});
export type BatchOp = z.infer<typeof BatchOpSchema>;

export const BATCH_STATUSES = ['PENDING', 'SUPERSEDED'] as const;

/** Account batch (§2.4). */
export const BatchSchema = z.looseObject({
  batch_hash: text,
  seq: maybe(integer),
  status: maybe(openEnum(BATCH_STATUSES)),
  origin: maybe(text),
  created_at: maybe(timestamp),
  executed_at: maybe(timestamp),
  unwound_at: maybe(timestamp),
  deadline_unix_seconds: maybe(integer),
  tx_hash: maybe(text),
  heals_batch_hash: maybe(text),
  superseded_by_batch_hash: maybe(text),
  failure: maybe(FailureSchema),
  withdrawal: maybe(WithdrawalSchema),
  ops: maybe(z.array(BatchOpSchema)),
});
export type Batch = z.infer<typeof BatchSchema>;
