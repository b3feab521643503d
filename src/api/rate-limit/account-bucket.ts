import type { RateLimitReport } from './headers.ts';
import { TokenBucket, type BucketShape } from './token-bucket.ts';

/** §8.1 read bucket per tier. The higher tier is granted by the operator and applies at once. */
export const READ_TIERS = {
  authenticated: { capacity: 100, refillPerSecond: 50 },
  higher: { capacity: 750, refillPerSecond: 500 },
} as const satisfies Record<string, BucketShape>;

const BOUND_HISTORY = 64;

interface RefillBounds {
  lower: number;
  upper: number;
}

/**
 * Our model of the account's read bucket, shared by every caller of one account. It starts from
 * the configured tier and is corrected by every `X-RateLimit-*` report (authoritative per §8.2):
 * - the level becomes `remaining`, minus what we sent after that request and is still in flight;
 * - the capacity becomes `limit`;
 * - `reset` = deficit ÷ refill gives bounds on the refill rate. With the reset written to a
 *   resolution u and `remaining` a whole number of tokens, the true reset lies within ±u and the
 *   true deficit within ±1, so (deficit − 1) ÷ (reset + u) is a safe lower bound whatever the
 *   rounding. The configured rate is kept while it lies within the bounds seen recently;
 *   otherwise the best lower bound is used (never faster than the venue proved).
 *
 * With a `share` below 1 the account is read by other processes too (scale-out: capture and the
 * sync worker): this process keeps to its share of the capacity and of the refill, and a report
 * can only lower its level (the account's `remaining` is what all of them left), never raise it.
 */
export class AccountReadBucket {
  readonly #bucket: TokenBucket;
  readonly #configured: BucketShape;
  readonly #share: number;
  #bounds: RefillBounds[] = [];

  constructor(configured: BucketShape, initialTokens?: number, share = 1) {
    if (!(share > 0 && share <= 1)) throw new RangeError(`a read share is within (0, 1], got ${share}`);
    this.#configured = { ...configured };
    this.#share = share;
    const shape = { capacity: configured.capacity * share, refillPerSecond: configured.refillPerSecond * share };
    this.#bucket = new TokenBucket(shape, initialTokens ?? shape.capacity);
  }

  get shape(): BucketShape {
    return this.#bucket.shape;
  }

  waitMs(cost: number, now: number, reserve: number): number {
    return this.#bucket.waitMs(cost, now, reserve);
  }

  take(cost: number, now: number): void {
    this.#bucket.take(cost, now);
  }

  tokens(now: number): number {
    return this.#bucket.tokens(now);
  }

  /** A report from a response; `sentLaterCost` is the read cost of requests sent after it and still unanswered. */
  observe(report: RateLimitReport, sentLaterCost: number, now: number): void {
    this.#learnBounds(report);
    this.#bucket.reshape({ capacity: report.limit * this.#share, refillPerSecond: this.#refill() * this.#share }, now);
    const accountLevel = report.remaining - sentLaterCost;
    this.#bucket.setTokens(this.#share < 1 ? Math.min(accountLevel, this.#bucket.tokens(now)) : accountLevel, now);
  }

  /** A 429 on this bucket: nothing before Retry-After, and forget rate evidence that proved wrong. */
  trip(retryAfterSeconds: number | undefined, report: RateLimitReport | undefined, now: number): void {
    this.#bounds = [];
    if (report) this.observe(report, 0, now);
    else this.#bucket.setTokens(0, now);
    if (retryAfterSeconds !== undefined) this.#bucket.blockUntil(now + retryAfterSeconds * 1000);
  }

  #learnBounds(report: RateLimitReport): void {
    const deficit = report.limit - report.remaining;
    if (deficit <= 1 || report.resetSeconds <= 0) return;
    const u = report.resetResolution;
    const bound = {
      lower: (deficit - 1) / (report.resetSeconds + u),
      upper: report.resetSeconds > u ? (deficit + 1) / (report.resetSeconds - u) : Number.POSITIVE_INFINITY,
    };
    // Bounds that contradict the recent ones mean the tier changed: start over from this report.
    if (this.#bounds.some((b) => b.lower > bound.upper || b.upper < bound.lower)) this.#bounds = [];
    this.#bounds.push(bound);
    if (this.#bounds.length > BOUND_HISTORY) this.#bounds.shift();
  }

  #refill(): number {
    if (this.#bounds.length === 0) return this.#configured.refillPerSecond;
    const lower = Math.max(...this.#bounds.map((b) => b.lower));
    const upper = Math.min(...this.#bounds.map((b) => b.upper));
    const configured = this.#configured.refillPerSecond;
    return configured >= lower && configured <= upper ? configured : lower;
  }
}
