import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { VenueClient } from '../src/api/client.ts';
import { IpLimits } from '../src/api/rate-limit/ip-limits.ts';
import { RateLimiter, type AdmissionRequest } from '../src/api/rate-limit/limiter.ts';
import { TokenBucket } from '../src/api/rate-limit/token-bucket.ts';
import { startSimulator } from '../src/simulator/index.ts';
import { Secret } from '../src/util/secret.ts';
import { JSON_HEADERS, PROBLEM_HEADERS, problem, rebatesPayload, stubVenue, summaryPayload } from './api-fixtures.ts';
import { ManualClock } from '../src/util/clock.ts';
import { SlidingWindow } from '../src/util/sliding-window.ts';

const read = (readCost = 1, path = '/trade/v1/portfolio/pnl'): AdmissionRequest => ({
  path,
  readCost,
  authenticated: true,
});

function limiterAt(options: ConstructorParameters<typeof RateLimiter>[0] = {}) {
  const clock = new ManualClock();
  const limiter = new RateLimiter({ clock, ipLimits: new IpLimits(), reserveTokens: 0, ...options });
  return { clock, limiter };
}

/** Acquires every request at once and records the virtual time each was let through. */
async function admissionTimes(
  limiter: RateLimiter,
  clock: ManualClock,
  requests: AdmissionRequest[],
): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    requests.map((request) =>
      limiter.acquire(request).then((permit) => {
        times[permit.seq] = clock.now();
        limiter.settle(permit);
      }),
    ),
  );
  return times;
}

describe('token bucket', () => {
  it('refills continuously up to its capacity and says how long a cost must wait', () => {
    const bucket = new TokenBucket({ capacity: 100, refillPerSecond: 50 });
    bucket.take(100, 0);
    expect(bucket.waitMs(5, 0)).toBe(100);
    expect(bucket.tokens(1_000)).toBe(50);
    expect(bucket.tokens(10_000)).toBe(100);
    expect(bucket.waitMs(1, 10_000, 2)).toBe(0);
  });

  it('never blocks forever a request larger than the bucket: it waits for a full bucket', () => {
    const bucket = new TokenBucket({ capacity: 3, refillPerSecond: 1 });
    bucket.take(3, 0);
    expect(bucket.waitMs(5, 0)).toBe(3_000);
  });
});

describe('sliding window', () => {
  it('allows at most limit events in any window', () => {
    const window = new SlidingWindow(3, 1_000);
    for (const t of [0, 10, 20]) window.record(t);
    expect(window.waitMs(500)).toBe(500);
    expect(window.waitMs(1_000)).toBe(0);
    window.record(1_000);
    expect(window.waitMs(1_005)).toBe(5);
  });
});

describe('account read bucket (§8.1)', () => {
  it('lets the burst through at once, then paces at the refill rate', async () => {
    const { clock, limiter } = limiterAt();
    const times = await admissionTimes(
      limiter,
      clock,
      Array.from({ length: 300 }, () => read()),
    );
    expect(times.filter((t) => t === 0)).toHaveLength(100);
    for (const [index, t] of times.entries())
      expect(index + 1).toBeLessThanOrEqual(100 + Math.floor((t * 50) / 1000) + 1);
    expect(times[299]).toBeCloseTo(4_000, 0);
  });

  it('keeps a reserve of tokens against clock jitter', async () => {
    const { clock, limiter } = limiterAt({ reserveTokens: 2 });
    const times = await admissionTimes(
      limiter,
      clock,
      Array.from({ length: 100 }, () => read()),
    );
    expect(times.filter((t) => t === 0)).toHaveLength(98);
  });

  it('is first come, first served: a cost-5 read is not overtaken by cheaper ones behind it', async () => {
    const { clock, limiter } = limiterAt({ read: { capacity: 10, refillPerSecond: 10 }, initialReadTokens: 0 });
    const times = await admissionTimes(limiter, clock, [read(5), read(1), read(1)]);
    expect(times).toEqual([500, 600, 700]);
  });

  it('portfolio reads cost 5 and others 1, as §8.1 lists them', async () => {
    const venue = stubVenue();
    venue.pool.intercept({ path: '/trade/v1/portfolio/summary' }).reply(200, summaryPayload, { headers: JSON_HEADERS });
    venue.pool.intercept({ path: '/trade/v1/portfolio/rebates' }).reply(200, rebatesPayload, { headers: JSON_HEADERS });
    await venue.client.portfolio.summary();
    expect(venue.limiter.stats().read.tokens).toBe(95);
    await venue.client.portfolio.rebates();
    expect(venue.limiter.stats().read.tokens).toBe(94);
  });

  it('one limiter shared by two clients of the same account spends one bucket', async () => {
    const first = stubVenue();
    const second = stubVenue({ limiter: first.limiter, clock: first.clock });
    first.pool.intercept({ path: '/trade/v1/portfolio/rebates' }).reply(200, rebatesPayload, { headers: JSON_HEADERS });
    second.pool
      .intercept({ path: '/trade/v1/portfolio/summary' })
      .reply(200, summaryPayload, { headers: JSON_HEADERS });
    await Promise.all([first.client.portfolio.rebates(), second.client.portfolio.summary()]);
    expect(first.limiter.stats()).toMatchObject({ admitted: 2, read: { tokens: 94 } });
  });
});

describe('X-RateLimit-* headers correct the model (§8.2)', () => {
  const report = (limit: string, remaining: string, reset: string) => ({
    'x-ratelimit-bucket': 'read',
    'x-ratelimit-limit': limit,
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  });

  it('the level becomes what the venue reports, minus what we sent since and is still unanswered', async () => {
    const { limiter } = limiterAt();
    const first = await limiter.acquire(read());
    await limiter.acquire(read(5));
    limiter.settle(first, { status: 200, headers: report('100', '40', '1.200') });
    expect(limiter.stats().read.tokens).toBe(35);
  });

  it('a report older than one already applied is ignored', async () => {
    const { limiter } = limiterAt();
    const older = await limiter.acquire(read());
    const newer = await limiter.acquire(read());
    limiter.settle(newer, { status: 200, headers: report('100', '20', '1.600') });
    limiter.settle(older, { status: 200, headers: report('100', '90', '0.200') });
    expect(limiter.stats().read.tokens).toBe(20);
  });

  it('learns a higher tier from the headers: capacity from Limit, refill from Reset', async () => {
    const { clock, limiter } = limiterAt();
    const permit = await limiter.acquire(read());
    limiter.settle(permit, { status: 200, headers: report('750', '0', '1.500') });
    expect(limiter.stats().read.capacity).toBe(750);
    // 750 tokens (±1) in 1.5 s (±1 ms): at least 749 / 1.501 ≈ 499/s, never more than the venue proved.
    expect(limiter.stats().read.refillPerSecond).toBeCloseTo(749 / 1.501, 6);
    const times = await admissionTimes(
      limiter,
      clock,
      Array.from({ length: 100 }, () => read()),
    );
    expect(times[99]).toBeLessThan(210);
  });

  it('keeps the configured rate while whole-second resets are consistent with it', async () => {
    const { limiter } = limiterAt();
    const permit = await limiter.acquire(read());
    limiter.settle(permit, { status: 200, headers: report('100', '2', '2') });
    expect(limiter.stats().read.refillPerSecond).toBe(50);
  });

  it('an account 429 (with headers) holds every caller until Retry-After, then the call succeeds', async () => {
    const venue = stubVenue();
    const limited = problem(429, 'rate_limited', { recovery: { strategy: 'retry_after', after_seconds: 2 } });
    venue.pool
      .intercept({ path: '/trade/v1/portfolio/rebates' })
      .reply(429, limited, { headers: { ...PROBLEM_HEADERS, 'retry-after': '2', ...report('100', '0', '2') } });
    venue.pool.intercept({ path: '/trade/v1/portfolio/rebates' }).reply(200, rebatesPayload, { headers: JSON_HEADERS });
    const rebates = await venue.client.portfolio.rebates();
    expect(rebates.value.total_micro).toBe(1_550_000n);
    const other = await venue.limiter.acquire(read());
    expect(venue.clock.now()).toBeGreaterThanOrEqual(2_000);
    venue.limiter.settle(other);
  });

  it('a per-IP 429 (no account headers) holds that path family until Retry-After', async () => {
    const { clock, limiter } = limiterAt();
    const permit = await limiter.acquire(read(1, '/api/v1/events'));
    limiter.settle(permit, { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '5' } });
    const times = await admissionTimes(limiter, clock, [read(1, '/api/v1/events')]);
    expect(times[1]).toBe(5_000);
  });
});

describe('per-IP caps (§8.3, §8.4)', () => {
  it('catalogue bursts stop at 98% of 400 and then refill', async () => {
    const { clock, limiter } = limiterAt();
    const anonymous = { path: '/api/v1/events', readCost: 1, authenticated: false };
    const times = await admissionTimes(
      limiter,
      clock,
      Array.from({ length: 400 }, () => anonymous),
    );
    expect(times.filter((t) => t === 0)).toHaveLength(392);
    expect(limiter.stats().read.tokens).toBe(100);
  });

  it('the /api/v1 sliding window caps a minute at 98% of 6,000', () => {
    const ip = new IpLimits({
      perMinute: { all: 16_000, trade: 14_000, api: 6_000 },
      windowMs: 60_000,
      bursts: {
        api: { capacity: 1e9, refillPerSecond: 1e9 },
        web: { capacity: 1, refillPerSecond: 1 },
        trade: { capacity: 1, refillPerSecond: 1 },
      },
    });
    for (let i = 0; i < 5_880; i += 1) ip.record('api', i);
    expect(ip.waitMs('api', 5_880)).toBe(60_000 - 5_880);
  });
});

describe('admission under a long-lived signal', () => {
  it('leaves no abort listener behind once a request is admitted', async () => {
    const { limiter } = limiterAt();
    const run = new AbortController(); // a sync job's whole run
    for (let i = 0; i < 300; i++) {
      const permit = await limiter.acquire(read(), run.signal);
      limiter.settle(permit);
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});

describe('processes sharing one account (scale-out: capture and the sync worker)', () => {
  /** Two processes' clients on the demo account, reading back to back (about 4 s at a half share). */
  async function twoProcesses(readShare: number): Promise<{ refused: number; reads: number }> {
    // Real time: two processes cannot share a virtual clock whose sleeps move the venue's time.
    const sim = await startSimulator({ seed: 4, rate: 0 });
    const processes = [0, 1].map(() => {
      const limiter = new RateLimiter({ ipLimits: new IpLimits(), readShare });
      return { limiter, client: new VenueClient({ baseUrl: sim.url, token: new Secret(sim.demoToken), limiter }) };
    });
    try {
      let reads = 0;
      // Each process keeps several reads in flight, as capture's re-seeds and the sync jobs do.
      await Promise.all(
        processes.flatMap(({ client }) =>
          [0, 1, 2, 3, 4].map(async () => {
            for (let i = 0; i < 30; i++) {
              await client.portfolio.rebates();
              reads += 1;
            }
          }),
        ),
      );
      return { refused: processes.reduce((n, p) => n + p.limiter.stats().refused, 0), reads };
    } finally {
      for (const p of processes) await p.client.close();
      await sim.close();
    }
  }

  it('earn no 429 when each keeps to its share of the read budget; at a full share each, they do', async () => {
    expect(await twoProcesses(0.5)).toEqual({ refused: 0, reads: 300 });
    expect((await twoProcesses(1)).refused).toBeGreaterThan(0);
  });

  it('refuses a share outside (0, 1]', () => {
    expect(() => new RateLimiter({ readShare: 0 })).toThrow(/within \(0, 1\]/);
    expect(() => new RateLimiter({ readShare: 1.5 })).toThrow(/within \(0, 1\]/);
  });
});
