import { backoffDelay as jitteredStep, type RandomSource } from '../util/backoff.ts';
import { codeInfo } from './codes.ts';
import type { VenueError } from './errors.ts';
import { RECOVERY_STRATEGIES, type KnownRecoveryStrategy } from './schemas/failure.ts';

/**
 * What to do after a failed read, following §7.2:
 * - validate `code` first: an unknown code gets no automatic action;
 * - a known code follows its `recovery.strategy`; an unknown strategy counts as `none`;
 * - a problem without recovery uses the code's documented reaction (codes.ts);
 * - codes whose meaning is "repeating does not help" stop whatever the recovery says.
 * Never a blanket retry of 5xx: a status alone decides nothing.
 */

export interface RetryPolicy {
  /** Sends per call, the first included. */
  maxAttempts: number;
  /** First backoff step of `retry`; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Up to this much random delay is added on top of a `retry_after` wait. */
  retryAfterJitterMs: number;
  /**
   * Longest `retry_after` wait taken inside one read (default 15 minutes). The venue asking for
   * longer stops the read, the error carrying the wait, so the caller's scheduler waits instead of
   * a read hanging for days (and setTimeout cannot wait past 24.8 days: it would fire at once).
   */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  retryAfterJitterMs: 250,
  maxRetryAfterMs: 15 * 60_000,
};

export type RecoveryDecision =
  | { action: 'retry'; delayMs: number; strategy: 'retry' | 'retry_after' }
  | { action: 'check_status'; resource: Record<string, unknown> & { kind: string } }
  | { action: 'stop'; reason: string };

export type { RandomSource };

export function effectiveStrategy(error: VenueError): KnownRecoveryStrategy {
  const info = codeInfo(decisionCode(error));
  if (!info || info.stop) return 'none';
  const strategy = error.recovery?.strategy;
  if (strategy === undefined) return error.recovery ? 'none' : info.fallback;
  return isKnownStrategy(strategy) ? strategy : 'none';
}

export function decideRecovery(
  error: VenueError,
  attempt: number,
  policy: RetryPolicy,
  random: RandomSource,
): RecoveryDecision {
  if (!codeInfo(decisionCode(error)))
    return { action: 'stop', reason: `unknown code ${error.code ?? '(none)'}: no automatic action` };
  const strategy = effectiveStrategy(error);
  switch (strategy) {
    case 'retry':
      return retryOrStop(attempt, policy, backoffDelay(attempt, policy, random), 'retry');
    case 'retry_after': {
      const delayMs = retryAfterDelay(error, attempt, policy, random);
      const longest = policy.maxRetryAfterMs ?? (DEFAULT_RETRY_POLICY.maxRetryAfterMs as number);
      if (delayMs > longest)
        return {
          action: 'stop',
          reason: `the venue asked to wait ${Math.round(delayMs / 1000)} s, longer than a read waits (${longest / 1000} s)`,
        };
      return retryOrStop(attempt, policy, delayMs, 'retry_after');
    }
    case 'check_status': {
      const resource = error.recovery?.resource;
      return resource
        ? { action: 'check_status', resource }
        : { action: 'stop', reason: 'check_status without a resource' };
    }
    case 'refresh_identity_token':
      return { action: 'stop', reason: 'identity token refresh needed: only a browser session can do that' };
    case 'none':
      return { action: 'stop', reason: `recovery for ${error.code} is none` };
  }
}

/** The policy's backoff (util/backoff.ts: exponential, "equal jitter", so waits never collapse to zero). */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: RandomSource,
): number {
  return jitteredStep(attempt, { firstMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, random);
}

/**
 * `retry_after`: the full wait the venue asked for — the larger of `after_seconds` and the
 * `Retry-After` header, which §8.2 says are equal — plus jitter. Without either, fall back to backoff.
 */
export function retryAfterDelay(error: VenueError, attempt: number, policy: RetryPolicy, random: RandomSource): number {
  const asked = Math.max(error.recovery?.after_seconds ?? -1, error.retryAfterSeconds ?? -1);
  if (asked < 0) return backoffDelay(attempt, policy, random);
  return asked * 1000 + random() * policy.retryAfterJitterMs;
}

/**
 * The code decisions are made on. A 429 whose body names no code (a proxy's page) is still a
 * rate limit: §7.7 says a 429 was refused before anything ran, so waiting Retry-After is safe.
 */
function decisionCode(error: VenueError): string | undefined {
  return error.code ?? (error.status === 429 ? 'rate_limited' : undefined);
}

function retryOrStop(
  attempt: number,
  policy: RetryPolicy,
  delayMs: number,
  strategy: 'retry' | 'retry_after',
): RecoveryDecision {
  if (attempt >= policy.maxAttempts) return { action: 'stop', reason: `gave up after ${attempt} attempts` };
  return { action: 'retry', delayMs, strategy };
}

function isKnownStrategy(value: string): value is KnownRecoveryStrategy {
  return (RECOVERY_STRATEGIES as readonly string[]).includes(value);
}
