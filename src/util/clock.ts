/**
 * Time, in one place. Everything that waits (rate limiting, backoff, Retry-After, watchdogs) or
 * stamps a record goes through a Clock, so a test that moves time by hand moves the waits and the
 * record times together, and runs them in virtual time instead of real time.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences matter. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Wall time: µs since the Unix epoch (what records are stamped with). */
  epochMicros(): bigint;
}

// The wall clock has only milliseconds; the monotonic clock has microseconds but drifts from the
// wall clock over days (NTP keeps slewing the latter). Read the monotonic clock from an anchor on
// the wall clock, and re-anchor whenever they part by more than a millisecond.
let anchorWallMs = Date.now();
let anchorMonotonicMs = performance.now();

/** Our receive time: µs since the epoch, within a millisecond of the wall clock. */
export function nowMicros(): bigint {
  const monotonic = performance.now();
  const wall = Date.now();
  let estimate = anchorWallMs + (monotonic - anchorMonotonicMs);
  if (Math.abs(estimate - wall) > 1) {
    anchorWallMs = wall;
    anchorMonotonicMs = monotonic;
    estimate = wall;
  }
  return BigInt(Math.round(estimate * 1000));
}

/** `setTimeout` as a promise that an abort signal ends early (rejecting with its reason). */
function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = { now: () => performance.now(), sleep: sleepFor, epochMicros: nowMicros };

interface PendingSleep {
  at: number;
  order: number;
  resolve: () => void;
}

/** When a ManualClock may jump, and what follows each jump. */
export interface ManualClockOptions {
  /** Time jumps only while this holds (else it looks again 1 ms later): e.g. no request on its way. */
  mayAdvance?: (pendingSleeps: number) => boolean;
  /** Called after each jump, before the sleeper wakes. */
  onAdvance?: () => void;
}

/**
 * Virtual time for tests: whenever the process has nothing else to do (next macrotask turn) and
 * `mayAdvance` allows it, time jumps to the earliest pending sleep and wakes it. `sleeps` records
 * every requested wait. Its wall time starts at `epochStartUs` (default: the real one when made)
 * and moves with it.
 */
export class ManualClock implements Clock {
  #now: number;
  readonly #start: number;
  readonly #epochStartUs: bigint;
  #pending: PendingSleep[] = [];
  #order = 0;
  #driving = false;
  readonly sleeps: number[] = [];

  constructor(
    start = 0,
    epochStartUs: bigint = nowMicros(),
    private readonly options: ManualClockOptions = {},
  ) {
    this.#now = start;
    this.#start = start;
    this.#epochStartUs = epochStartUs;
  }

  now(): number {
    return this.#now;
  }

  epochMicros(): bigint {
    return this.#epochStartUs + BigInt(Math.round((this.#now - this.#start) * 1000));
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
    setImmediate(() => this.#step());
  }

  #step(): void {
    if (this.#pending.length === 0) {
      this.#driving = false;
      return;
    }
    if (this.options.mayAdvance && !this.options.mayAdvance(this.#pending.length)) {
      setTimeout(() => this.#step(), 1);
      return;
    }
    this.#pending.sort((a, b) => a.at - b.at || a.order - b.order);
    const next = this.#pending.shift()!;
    this.#now = Math.max(this.#now, next.at);
    this.options.onAdvance?.();
    next.resolve();
    setImmediate(() => this.#step());
  }
}
