/**
 * Exponential backoff with jitter for warehouse calls: 100 ms doubling up to 30 s, for as long as
 * it takes (nothing is dropped) — unless `giveUp` is aborted (a stop past its deadline).
 */

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 30_000 };

export class GaveUp extends Error {
  constructor(readonly lastError: unknown) {
    super('gave up retrying the warehouse (the loader is stopping)');
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

export async function retryForever<T>(operation: () => Promise<T>, hooks: RetryHooks, options: BackoffOptions = DEFAULT_BACKOFF): Promise<T> {
  let attempt = 0;
  for (;;) {
    try {
      const result = await operation();
      if (attempt > 0) hooks.onRecovered();
      return result;
    } catch (error) {
      attempt += 1;
      if (hooks.giveUp.aborted) throw new GaveUp(error);
      const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt - 1, 20));
      const waitMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
      hooks.onFailure(error, attempt, waitMs);
      await sleep(waitMs, hooks.giveUp);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
