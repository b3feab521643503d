import { z } from 'zod';
import { maybe, number, openEnum, text } from './common.ts';

export const RECOVERY_STRATEGIES = ['none', 'retry', 'retry_after', 'refresh_identity_token', 'check_status'] as const;
export type KnownRecoveryStrategy = (typeof RECOVERY_STRATEGIES)[number];

/** `recovery` (§7.2): a strategy plus `after_seconds` (retry_after) or `resource` (check_status). */
export const RecoverySchema = z.looseObject({
  strategy: openEnum(RECOVERY_STRATEGIES),
  after_seconds: maybe(number.nonnegative()),
  resource: maybe(z.looseObject({ kind: text })),
});
export type Recovery = z.infer<typeof RecoverySchema>;

/** Failure object (§2.2), embedded in orders, account batches and wallet setup. */
export const FailureSchema = z.looseObject({
  code: text,
  title: maybe(text),
  detail: maybe(text),
  recovery: maybe(RecoverySchema),
});
export type Failure = z.infer<typeof FailureSchema>;
