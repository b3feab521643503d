import { systemClock, type Clock } from './clock.ts';

/**
 * Backoff, once for every part: exponential steps from `firstMs` doubling up to `maxMs`, taken
 * whole (`backoffStep`) or with "equal jitter" (`backoffDelay`: half the step fixed, half random,
 * so that many waiters spread out and no wait collapses to zero). Waits go through a Clock.
 */
export interface BackoffShape {
  firstMs: number;
  maxMs: number;
}

/** Random numbers in [0, 1); injected so tests see exact delays. */
export type RandomSource = () => number;

/** The step of attempt `attempt` (from 1): `firstMs` × 2^(attempt − 1), at most `maxMs`. */
export function backoffStep(attempt: number, shape: BackoffShape): number {
  return Math.min(shape.maxMs, shape.firstMs * 2 ** Math.min(Math.max(0, attempt - 1), 30));
}

/** The step of `attempt` with equal jitter: between half of it and all of it. */
export function backoffDelay(attempt: number, shape: BackoffShape, random: RandomSource = Math.random): number {
  const step = backoffStep(attempt, shape);
  return step / 2 + random() * (step / 2);
}

/** Stopping cut the retries short; `lastError` is the failure before it. */
export class GaveUp extends Error {
  constructor(
    readonly lastError: unknown,
    what = 'the operation',
  ) {
    super(`gave up retrying ${what} (stopping)`);
    this.name = 'GaveUp';
  }
}

export interface RetryHooks {
  /** Called on each failure before waiting; `attempt` counts from 1. */
  onFailure(error: unknown, attempt: number, waitMs: number): void;
  /** Called once the operation succeeds after failures. */
  onRecovered(): void;
  /** Aborted when retrying should stop: the wait ends and GaveUp is thrown. */
  giveUp: AbortSignal;
}

export interface RetryOptions {
  shape?: BackoffShape;
  clock?: Clock;
  random?: RandomSource;
  /** Named by GaveUp's message. */
  what?: string;
}

/** For as long as it takes (nothing is dropped), unless `giveUp` is aborted (a stop past its deadline). */
export async function retryForever<T>(
  operation: () => Promise<T>,
  hooks: RetryHooks,
  options: RetryOptions = {},
): Promise<T> {
  const { shape = { firstMs: 100, maxMs: 30_000 }, clock = systemClock, random = Math.random } = options;
  let attempt = 0;
  for (;;) {
    try {
      const result = await operation();
      if (attempt > 0) hooks.onRecovered();
      return result;
    } catch (error) {
      attempt += 1;
      if (hooks.giveUp.aborted) throw new GaveUp(error, options.what);
      const waitMs = Math.round(backoffDelay(attempt, shape, random));
      hooks.onFailure(error, attempt, waitMs);
      // The give-up signal ends the wait early; the next failure (or success) decides.
      await clock.sleep(waitMs, hooks.giveUp).catch(() => undefined);
    }
  }
}
