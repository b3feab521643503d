/** Capacity (burst) and continuous refill of a token bucket. */
export interface BucketShape {
  capacity: number;
  refillPerSecond: number;
}

// Float rounding must not turn "exactly enough" into a 0 ms re-check loop.
const EPSILON = 1e-9;

/**
 * A token bucket in the venue's terms (§8.1): refills continuously up to its capacity; a request
 * that costs more than is left waits. Tokens may go below zero when the venue tells us so (a
 * correction from headers), which simply lengthens the wait. Time starts at the first use.
 */
export class TokenBucket {
  #shape: BucketShape;
  #tokens: number;
  #at: number | undefined;
  #blockedUntil = Number.NEGATIVE_INFINITY;

  constructor(shape: BucketShape, initialTokens = shape.capacity) {
    this.#shape = { ...shape };
    this.#tokens = initialTokens;
  }

  get shape(): BucketShape {
    return { ...this.#shape };
  }

  tokens(now: number): number {
    this.#advance(now);
    return this.#tokens;
  }

  /**
   * Milliseconds until `cost` fits while leaving `reserve` tokens unspent (0 = now). The reserve
   * absorbs jitter between our clock and the venue's; it never blocks a request larger than the bucket.
   */
  waitMs(cost: number, now: number, reserve = 0): number {
    this.#advance(now);
    const blocked = Math.max(0, this.#blockedUntil - now);
    // Capped at the capacity: a request larger than the bucket goes when it is full, into debt.
    const needed = Math.min(cost + reserve, this.#shape.capacity);
    const missing = needed - this.#tokens;
    if (missing <= EPSILON) return blocked;
    if (this.#shape.refillPerSecond <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(blocked, (missing * 1000) / this.#shape.refillPerSecond);
  }

  take(cost: number, now: number): void {
    this.#advance(now);
    this.#tokens -= cost;
  }

  /** Replaces capacity and refill (tier change or headers), keeping the current level. */
  reshape(shape: BucketShape, now: number): void {
    this.#advance(now);
    this.#shape = { ...shape };
    this.#tokens = Math.min(this.#tokens, shape.capacity);
  }

  /** Sets the level as the venue reports it. */
  setTokens(tokens: number, now: number): void {
    this.#advance(now);
    this.#tokens = Math.min(tokens, this.#shape.capacity);
  }

  /** Admits nothing before `until` (a 429's Retry-After). */
  blockUntil(until: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, until);
  }

  #advance(now: number): void {
    if (this.#at === undefined || now <= this.#at) {
      this.#at ??= now;
      return;
    }
    const refilled = this.#tokens + ((now - this.#at) * this.#shape.refillPerSecond) / 1000;
    this.#tokens = Math.min(this.#shape.capacity, refilled);
    this.#at = now;
  }
}
