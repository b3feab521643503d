import type { Logger } from '../util/log.ts';
import { backoffStep } from '../util/backoff.ts';
import { type Clock, systemClock } from '../util/clock.ts';

/** When the venue does not answer at all (connection refused, timeouts), how often it is tried again. */
export const PROBE_BACKOFF = { firstMs: 1_000, maxMs: 30_000 } as const;

export interface ReachabilityState {
  reachable: boolean;
  /** Wall-clock ms of the first failure of the current outage. */
  unreachableSinceMs?: number;
  /** The last transport failure, e.g. "connect ECONNREFUSED 127.0.0.1:1". */
  reason?: string;
  /** Requests that failed to reach the venue in this outage. */
  failures: number;
}

/**
 * Whether the venue answers at all, shared by every reader of one venue in a process (capture's
 * REST reads and all the sync jobs). While it does not, requests do not each retry on their own
 * schedule — a dozen readers would try several times a second, each logging a warning — but go
 * out one at a time, each after a backoff doubling from 1 s to 30 s; the others wait for the
 * outcome. One warning when the venue stops answering, one line when it answers again.
 *
 * Any answer counts as reachable (a 503 is the venue speaking; its recovery rules apply as usual).
 */
export class Reachability {
  #down: { sinceMs: number; reason: string; failures: number; nextAt: number } | undefined;
  #probing = false;
  #waiters: Array<() => void> = [];
  #closed = false;

  constructor(
    readonly baseUrl: string,
    private readonly options: { clock?: Clock; log?: Logger; wallClock?: () => number } = {},
  ) {}

  /**
   * Waits until a request may go out: at once while the venue answers; during an outage, when the
   * backoff allows and no other request is already trying. Returns whether this request is that
   * probe (it must then report `answered`, `failed` or `released`).
   */
  async admit(signal?: AbortSignal): Promise<boolean> {
    const clock = this.options.clock ?? systemClock;
    while (this.#down && !this.#closed) {
      const waitMs = this.#down.nextAt - clock.now();
      if (!this.#probing && waitMs <= 0) {
        this.#probing = true;
        return true;
      }
      // Woken by the probe's outcome, or when the next probe is due; the timer goes with the wait.
      const done = new AbortController();
      const onAbort = () => done.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const changed = new Promise<void>((resolve) => this.#waiters.push(resolve));
      const due = this.#probing
        ? new Promise<void>(() => undefined)
        : clock.sleep(waitMs, done.signal).catch(() => undefined);
      await Promise.race([
        changed,
        due,
        new Promise<void>((resolve) => done.signal.addEventListener('abort', () => resolve(), { once: true })),
      ]);
      done.abort();
      signal?.removeEventListener('abort', onAbort);
      signal?.throwIfAborted();
    }
    return false;
  }

  /** A request got an answer (any status): the venue is reachable. */
  answered(): void {
    this.#probing = false;
    if (this.#down) {
      const downMs = this.#wallNow() - this.#down.sinceMs;
      this.options.log?.info(
        { venue: this.baseUrl, downMs, failures: this.#down.failures },
        `venue reachable again after ${Math.round(downMs / 1000)} s`,
      );
      this.#down = undefined;
    }
    this.#wake();
  }

  /** A request could not reach the venue. */
  failed(reason: string): void {
    const clock = this.options.clock ?? systemClock;
    this.#probing = false;
    if (!this.#down) {
      this.#down = { sinceMs: this.#wallNow(), reason, failures: 1, nextAt: clock.now() + PROBE_BACKOFF.firstMs };
      this.options.log?.warn(
        { venue: this.baseUrl, reason },
        `venue ${this.baseUrl} unreachable (${reason}); trying again with a backoff up to ${PROBE_BACKOFF.maxMs / 1000} s`,
      );
    } else {
      const down = this.#down;
      down.failures += 1;
      down.reason = reason;
      down.nextAt = clock.now() + backoffStep(down.failures, PROBE_BACKOFF);
    }
    this.#wake();
  }

  /** The probe ended without an outcome (aborted, or refused before it was sent): let another try. */
  released(): void {
    this.#probing = false;
    this.#wake();
  }

  state(): ReachabilityState {
    if (!this.#down) return { reachable: true, failures: 0 };
    return {
      reachable: false,
      unreachableSinceMs: this.#down.sinceMs,
      reason: this.#down.reason,
      failures: this.#down.failures,
    };
  }

  /** Lets every waiting request go (the process is stopping; their own signals end them). */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wallNow(): number {
    return (this.options.wallClock ?? Date.now)();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
