import { type Clock, systemClock } from '../util/clock.ts';
import { SlidingWindow } from '../util/sliding-window.ts';

/**
 * §8.5: each stream endpoint allows 300 connection attempts per IP per 60 s, failed attempts and
 * reconnects included; a refused attempt gets 429 with Retry-After: 60. Every connection of this
 * process to one endpoint shares one budget, so a reconnect storm across many sockets never earns
 * a 429 from our own pacing. We keep a margin below the venue's figure: counting at the edge is
 * approximate, and other processes on the same IP may spend it too.
 */
export const VENUE_ATTEMPTS_PER_MINUTE = 300;

export class ConnectionBudget {
  readonly #window: SlidingWindow;

  constructor(
    readonly attemptsPerMinute = VENUE_ATTEMPTS_PER_MINUTE - 20,
    private readonly clock: Clock = systemClock,
  ) {
    this.#window = new SlidingWindow(attemptsPerMinute, 60_000);
  }

  /** Waits until one more attempt fits, then counts it. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.#window.waitMs(this.clock.now());
      if (wait <= 0) break;
      await this.clock.sleep(wait, signal);
    }
    this.#window.record(this.clock.now());
  }

  /** A refused attempt: nothing more until the venue's Retry-After has passed. */
  refusedFor(seconds: number): void {
    this.#window.blockUntil(this.clock.now() + seconds * 1000);
  }
}

/** One budget per endpoint path, shared by every connection of the process. */
export class ConnectionBudgets {
  readonly #byPath = new Map<string, ConnectionBudget>();
  constructor(
    private readonly attemptsPerMinute?: number,
    private readonly clock: Clock = systemClock,
  ) {}

  for(path: string): ConnectionBudget {
    // Query parameters and a trailing slash do not add allowance (§8.5): they share the path's budget.
    const key = path.split('?')[0]!.replace(/\/+$/, '');
    let budget = this.#byPath.get(key);
    if (!budget) {
      budget = new ConnectionBudget(this.attemptsPerMinute, this.clock);
      this.#byPath.set(key, budget);
    }
    return budget;
  }
}
