/** A token bucket on the injected clock: `capacity` burst, `refillPerSecond` steady rate. */
export class TokenBucket {
  #tokens: number;
  #atMs: number;

  constructor(
    public capacity: number,
    public refillPerSecond: number,
    nowMs: number,
  ) {
    this.#tokens = capacity;
    this.#atMs = nowMs;
  }

  /** A tier change applies from the next request; the tokens already there stay. */
  configure(capacity: number, refillPerSecond: number): void {
    this.capacity = capacity;
    this.refillPerSecond = refillPerSecond;
    this.#tokens = Math.min(this.#tokens, capacity);
  }

  #refill(nowMs: number): void {
    if (nowMs > this.#atMs) {
      this.#tokens = Math.min(this.capacity, this.#tokens + ((nowMs - this.#atMs) / 1000) * this.refillPerSecond);
      this.#atMs = nowMs;
    }
  }

  tryTake(cost: number, nowMs: number): boolean {
    this.#refill(nowMs);
    if (this.#tokens < cost) return false;
    this.#tokens -= cost;
    return true;
  }

  /** Takes what is there even if short; the read spend of §8.1 happens whatever follows. */
  remaining(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#tokens);
  }

  fillRatio(nowMs: number): number {
    this.#refill(nowMs);
    return this.#tokens / this.capacity;
  }

  /** Whole seconds until the bucket is full again. */
  secondsUntilFull(nowMs: number): number {
    this.#refill(nowMs);
    return Math.ceil((this.capacity - this.#tokens) / this.refillPerSecond);
  }

  /** Whole seconds until `cost` tokens are there (at least 1 when they are not now). */
  secondsUntil(cost: number, nowMs: number): number {
    this.#refill(nowMs);
    if (this.#tokens >= cost) return 0;
    return Math.max(1, Math.ceil((cost - this.#tokens) / this.refillPerSecond));
  }
}
