/**
 * At most `limit` events in any window of `windowMs` (§8.3's per-IP caps, §8.5's connection
 * attempts). Keeps the times of the last `limit` events in a ring.
 */
export class SlidingWindow {
  readonly #times: Float64Array;
  #head = 0;
  #count = 0;
  #blockedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    this.#times = new Float64Array(Math.max(1, limit));
  }

  /** Milliseconds until one more event fits (0 = now). */
  waitMs(now: number): number {
    this.#forget(now);
    const blocked = Math.max(0, this.#blockedUntil - now);
    if (this.#count < this.limit) return blocked;
    const oldest = this.#times[this.#head] ?? now;
    return Math.max(blocked, oldest + this.windowMs - now);
  }

  record(now: number): void {
    this.#forget(now);
    const tail = (this.#head + this.#count) % this.#times.length;
    this.#times[tail] = now;
    if (this.#count < this.#times.length) this.#count += 1;
    else this.#head = (this.#head + 1) % this.#times.length;
  }

  /** Admits nothing before `until` (a 429's Retry-After). */
  blockUntil(until: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, until);
  }

  #forget(now: number): void {
    while (this.#count > 0 && (this.#times[this.#head] ?? now) <= now - this.windowMs) {
      this.#head = (this.#head + 1) % this.#times.length;
      this.#count -= 1;
    }
  }
}
