import { TokenBucket, type BucketShape } from './token-bucket.ts';
import { SlidingWindow } from '../../util/sliding-window.ts';

/** Which per-IP limits a path falls under (§8.3, §8.4). */
export type PathFamily = 'trade' | 'api' | 'web';

export function pathFamily(path: string): PathFamily {
  if (path.startsWith('/trade/v1/')) return 'trade';
  if (path.startsWith('/api/v1/')) return 'api';
  return 'web';
}

export interface IpLimitsConfig {
  /** §8.3 sliding-window caps per minute: `all` is the catch-all on top of which the others apply. */
  perMinute: { all: number; trade: number; api: number };
  windowMs: number;
  /** §8.4 service bursts. */
  bursts: Record<PathFamily, BucketShape>;
}

export const IP_LIMITS: IpLimitsConfig = {
  perMinute: { all: 16_000, trade: 14_000, api: 6_000 },
  windowMs: 60_000,
  bursts: {
    api: { capacity: 400, refillPerSecond: 400 },
    web: { capacity: 400, refillPerSecond: 400 },
    trade: { capacity: 1_000, refillPerSecond: 1_000 },
  },
};

/**
 * The venue counts per-IP with "a short settling delay", so we stay a little under its caps: this
 * share of each cap and burst is what we allow ourselves.
 */
export const IP_SAFETY_SHARE = 0.98;

/**
 * Per-IP limits, shared by everything in this process (all accounts leave from the same address).
 * Each request counts once, whatever its account-bucket cost.
 */
export class IpLimits {
  readonly #all: SlidingWindow;
  readonly #windows: Partial<Record<PathFamily, SlidingWindow>>;
  readonly #bursts: Record<PathFamily, TokenBucket>;

  constructor(config: IpLimitsConfig = IP_LIMITS, share = IP_SAFETY_SHARE) {
    const cap = (n: number): number => Math.max(1, Math.floor(n * share));
    const burst = (b: BucketShape): TokenBucket =>
      new TokenBucket({ capacity: cap(b.capacity), refillPerSecond: b.refillPerSecond * share });
    this.#all = new SlidingWindow(cap(config.perMinute.all), config.windowMs);
    this.#windows = {
      trade: new SlidingWindow(cap(config.perMinute.trade), config.windowMs),
      api: new SlidingWindow(cap(config.perMinute.api), config.windowMs),
    };
    this.#bursts = { trade: burst(config.bursts.trade), api: burst(config.bursts.api), web: burst(config.bursts.web) };
  }

  waitMs(family: PathFamily, now: number): number {
    return Math.max(
      this.#all.waitMs(now),
      this.#windows[family]?.waitMs(now) ?? 0,
      this.#bursts[family].waitMs(1, now),
    );
  }

  record(family: PathFamily, now: number): void {
    this.#all.record(now);
    this.#windows[family]?.record(now);
    this.#bursts[family].take(1, now);
  }

  /** A per-IP 429 (no account headers): hold the whole family until Retry-After. */
  block(family: PathFamily, until: number): void {
    this.#bursts[family].blockUntil(until);
  }
}

let shared: IpLimits | undefined;

/** The process-wide per-IP limits, used unless a client is given its own. */
export function processIpLimits(): IpLimits {
  shared ??= new IpLimits();
  return shared;
}
