import { TokenBucket } from './token-bucket.ts';
import { ACCOUNT_BUCKETS, type BucketName } from './account-limits.ts';

export type Service = 'api' | 'trade' | 'web';

export function serviceOf(path: string): Service {
  if (path.startsWith('/api/v1/') || path === '/api/v1') return 'api';
  if (path.startsWith('/trade/v1/') || path === '/trade/v1') return 'trade';
  return 'web';
}

/** §8.4 service bursts per IP: [burst, refill per second]. */
const SERVICE_BURSTS: Record<Service, [number, number]> = { api: [400, 400], web: [400, 400], trade: [1_000, 1_000] };

/** §8.3 edge caps per IP over a sliding 60 s window; the catch-all applies to every request. */
const EDGE_CAPS: Record<Service, number> = { api: 6_000, trade: 14_000, web: 16_000 };
const EDGE_ALL = 16_000;
const WINDOW_SECONDS = 60;

/** Per-second counts over the last minute for one key. */
class SlidingWindow {
  readonly #counts = new Array<number>(WINDOW_SECONDS).fill(0);
  readonly #seconds = new Array<number>(WINDOW_SECONDS).fill(-1);

  /** Requests of the last minute, leaving out those younger than `settlingMs` (not counted yet). */
  count(nowMs: number, settlingMs = 0): number {
    const now = Math.floor(nowMs / 1000);
    const settled = Math.floor((nowMs - settlingMs) / 1000);
    let total = 0;
    for (let i = 0; i < WINDOW_SECONDS; i++) {
      const second = this.#seconds[i] ?? -1;
      if (second > now - WINDOW_SECONDS && second <= settled) total += this.#counts[i] ?? 0;
    }
    return total;
  }

  add(nowMs: number): void {
    const now = Math.floor(nowMs / 1000);
    const slot = now % WINDOW_SECONDS;
    if (this.#seconds[slot] !== now) {
      this.#seconds[slot] = now;
      this.#counts[slot] = 0;
    }
    this.#counts[slot] = (this.#counts[slot] ?? 0) + 1;
  }

  /** Seconds until the oldest counted second leaves the window. */
  secondsUntilRoom(nowMs: number): number {
    const now = Math.floor(nowMs / 1000);
    const live = this.#seconds.filter((s) => s > now - WINDOW_SECONDS);
    const oldest = live.length ? Math.min(...live) : now;
    return Math.max(1, oldest + WINDOW_SECONDS - now);
  }
}

/**
 * §8.3 edge caps. "Counting has a short settling delay": a request counts toward the caps only
 * once `settlingMs` old, so a burst can pass the cap for that long and is then held back longer.
 */
export class EdgeLimiter {
  readonly #windows = new Map<string, SlidingWindow>();

  constructor(
    private readonly scale: number,
    private readonly settlingMs = 0,
  ) {}

  #window(key: string): SlidingWindow {
    let w = this.#windows.get(key);
    if (!w) {
      w = new SlidingWindow();
      this.#windows.set(key, w);
    }
    return w;
  }

  /** Admits and counts the request, or returns seconds to wait. */
  admit(ip: string, path: string, nowMs: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const service = serviceOf(path);
    const all = this.#window(`${ip}|all`);
    const specific = service === 'web' ? undefined : this.#window(`${ip}|${service}`);
    if (all.count(nowMs, this.settlingMs) >= EDGE_ALL * this.scale)
      return { ok: false, retryAfterSeconds: all.secondsUntilRoom(nowMs) };
    if (specific && specific.count(nowMs, this.settlingMs) >= EDGE_CAPS[service] * this.scale)
      return { ok: false, retryAfterSeconds: specific.secondsUntilRoom(nowMs) };
    all.add(nowMs);
    specific?.add(nowMs);
    return { ok: true };
  }
}

/** §8.4 per-IP service bursts, and the per-IP limits of the seven trading actions (Higher-tier values). */
export class IpLimiter {
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(private readonly scale: number) {}

  #bucket(key: string, burst: number, refill: number, nowMs: number): TokenBucket {
    let b = this.#buckets.get(key);
    if (!b) {
      b = new TokenBucket(burst * this.scale, refill * this.scale, nowMs);
      this.#buckets.set(key, b);
    }
    return b;
  }

  admitService(ip: string, path: string, nowMs: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const service = serviceOf(path);
    const [burst, refill] = SERVICE_BURSTS[service];
    const bucket = this.#bucket(`${ip}|${service}`, burst, refill, nowMs);
    return bucket.tryTake(1, nowMs) ? { ok: true } : { ok: false, retryAfterSeconds: bucket.secondsUntil(1, nowMs) };
  }

  admitAction(
    ip: string,
    endpoint: string,
    bucketName: BucketName,
    nowMs: number,
  ): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const [burst, refill] = ACCOUNT_BUCKETS[bucketName].higher;
    const bucket = this.#bucket(`${ip}|action|${endpoint}`, burst, refill, nowMs);
    return bucket.tryTake(1, nowMs) ? { ok: true } : { ok: false, retryAfterSeconds: bucket.secondsUntil(1, nowMs) };
  }
}
