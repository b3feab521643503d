/**
 * Time source of the simulator. Everything time-dependent (GTD expiry, token buckets, trader
 * cadence, settlement, PnL marks) reads this, so tests can move time without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #now: number;
  constructor(startMs = Date.UTC(2025, 0, 6, 12, 0, 0)) {
    this.#now = startMs;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    if (ms < 0) throw new Error('a clock does not run backwards');
    this.#now += ms;
  }
  set(ms: number): void {
    if (ms < this.#now) throw new Error('a clock does not run backwards');
    this.#now = ms;
  }
}

/** A clock that never reads earlier than `floorMs` (a saved venue on a machine whose clock went back). */
export function notBefore(clock: Clock, floorMs: number): Clock {
  return { now: () => Math.max(clock.now(), floorMs) };
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
