/**
 * Time as the client sees it. Everything that waits (rate limiting, backoff, Retry-After) goes
 * through a Clock, so tests run those waits in virtual time instead of real time.
 */
export interface Clock {
  /** Milliseconds; only differences matter. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface PendingSleep {
  at: number;
  order: number;
  resolve: () => void;
}

/**
 * Virtual time for tests: whenever the process has nothing else to do (next macrotask turn),
 * time jumps to the earliest pending sleep and wakes it. `sleeps` records every requested wait.
 */
export class ManualClock implements Clock {
  #now: number;
  #pending: PendingSleep[] = [];
  #order = 0;
  #driving = false;
  readonly sleeps: number[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const entry: PendingSleep = { at: this.#now + Math.max(0, ms), order: this.#order++, resolve };
      this.#pending.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          this.#pending = this.#pending.filter((p) => p !== entry);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#drive();
    });
  }

  /** Moves time forward by hand (for example to let a remembered answer expire). */
  advance(ms: number): void {
    this.#now += ms;
  }

  #drive(): void {
    if (this.#driving) return;
    this.#driving = true;
    setImmediate(() => {
      this.#driving = false;
      this.#pending.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.#pending.shift();
      if (!next) return;
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      if (this.#pending.length > 0) this.#drive();
    });
  }
}
