import type { RateTier } from '../../accounts/account.ts';
import { TokenBucket } from './token-bucket.ts';

export type BucketName = 'read' | 'place' | 'place_batch' | 'cancel' | 'cancel_all';

/** §8.1: [burst, refill per second] by tier. */
export const ACCOUNT_BUCKETS: Record<BucketName, Record<RateTier, [burst: number, refill: number]>> = {
  read: { authenticated: [100, 50], higher: [750, 500] },
  place: { authenticated: [100, 10], higher: [500, 150] },
  place_batch: { authenticated: [10, 1], higher: [100, 20] },
  cancel: { authenticated: [200, 25], higher: [2_000, 350] },
  cancel_all: { authenticated: [10, 1], higher: [10, 1] },
};

export type ChargeResult =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; retryAfterSeconds: number; headers: Record<string, string> };

/** Per-account buckets, shared by all tokens of the account (§5.1, §8.1). */
export class AccountLimiter {
  readonly #buckets = new Map<string, Map<BucketName, TokenBucket>>();

  constructor(private readonly scale: number) {}

  #bucket(accountId: string, name: BucketName, tier: RateTier, nowMs: number): TokenBucket {
    let byName = this.#buckets.get(accountId);
    if (!byName) {
      byName = new Map();
      this.#buckets.set(accountId, byName);
    }
    const [burst, refill] = ACCOUNT_BUCKETS[name][tier];
    let bucket = byName.get(name);
    if (!bucket) {
      bucket = new TokenBucket(burst * this.scale, refill * this.scale, nowMs);
      byName.set(name, bucket);
    } else if (bucket.capacity !== burst * this.scale || bucket.refillPerSecond !== refill * this.scale) {
      bucket.configure(burst * this.scale, refill * this.scale);
    }
    return bucket;
  }

  /**
   * Debits the read cost, then one token of the action bucket. A 429 takes nothing from the bucket
   * that refused, but a read spend made before an action refusal stays spent (§8.1).
   */
  charge(
    accountId: string,
    tier: RateTier,
    readCost: number,
    action: BucketName | undefined,
    nowMs: number,
  ): ChargeResult {
    const read = this.#bucket(accountId, 'read', tier, nowMs);
    if (!read.tryTake(readCost, nowMs)) return this.#refused('read', read, readCost, nowMs);
    const touched: Array<[BucketName, TokenBucket]> = [['read', read]];
    if (action) {
      const bucket = this.#bucket(accountId, action, tier, nowMs);
      if (!bucket.tryTake(1, nowMs)) return this.#refused(action, bucket, 1, nowMs);
      touched.push([action, bucket]);
    }
    // The header names the bucket closest to empty.
    const [name, bucket] = touched.reduce((a, b) => (b[1].fillRatio(nowMs) < a[1].fillRatio(nowMs) ? b : a));
    return { ok: true, headers: headersOf(name, bucket, nowMs) };
  }

  #refused(name: BucketName, bucket: TokenBucket, cost: number, nowMs: number): ChargeResult {
    const retryAfterSeconds = bucket.secondsUntil(cost, nowMs);
    return {
      ok: false,
      retryAfterSeconds,
      headers: { ...headersOf(name, bucket, nowMs), 'Retry-After': String(retryAfterSeconds) },
    };
  }
}

function headersOf(name: BucketName, bucket: TokenBucket, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Bucket': name,
    'X-RateLimit-Limit': String(bucket.capacity),
    'X-RateLimit-Remaining': String(bucket.remaining(nowMs)),
    'X-RateLimit-Reset': String(bucket.secondsUntilFull(nowMs)),
  };
}
