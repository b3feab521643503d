import { afterEach, describe, expect, it } from 'vitest';
import type { ManualClock, SimulatorHandle } from '../src/simulator/index.ts';
import { api, quietSimulator, tradableMarket, USDC, type ApiResponse } from './simulator-helpers.ts';

let sim: SimulatorHandle;
let clock: ManualClock;

/** The documented figures counted exactly: no CDN cache in front, no settling delay of edge counting, the headers on
 * every answer (test/simulator-cases has those cases). */
async function limited(limits: { account?: boolean; ipBurst?: boolean; edge?: boolean }): Promise<void> {
  ({ sim, clock } = await quietSimulator({
    deployment: { limits },
    cases: { cdnCacheMs: 0, edgeSettlingMs: 0, rateLimitHeadersShare: 1 },
  }));
}

afterEach(async () => {
  await sim.close();
});

/** n requests in parallel batches; the clock does not move meanwhile. */
async function burst(n: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const out: ApiResponse[] = [];
  for (let done = 0; done < n; done += 50)
    out.push(...(await Promise.all(Array.from({ length: Math.min(50, n - done) }, send))));
  return out;
}

function expectAccount429(res: ApiResponse, bucket: string): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.json).toMatchObject({ code: 'rate_limited', recovery: { strategy: 'retry_after' } });
  expect(res.json.request_id).toBe(res.headers.get('x-request-id'));
  expect(res.headers.get('x-ratelimit-bucket')).toBe(bucket);
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(res.json.recovery.after_seconds).toBe(Number(res.headers.get('retry-after')));
  expect(res.json.recovery.after_seconds).toBeGreaterThanOrEqual(1);
}

describe('per-account buckets', () => {
  it('trips the read bucket at 100 requests and refills at 50 per second', async () => {
    await limited({ account: true });
    const token = sim.venue.createAccount('reader', USDC(1)).token.secret;
    const read = (): Promise<ApiResponse> => api(sim, 'GET', '/trade/v1/portfolio/rebates', { token });
    const ok = await burst(100, read);
    expect(ok.every((r) => r.status === 200)).toBe(true);
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    expect(ok[0]?.headers.get('x-ratelimit-limit')).toBe('100');
    expectAccount429(await read(), 'read');
    // The fault suite's "429s earned" comes from this tally.
    expect(sim.rateLimits()).toEqual({ earned: { edge: 0, ip: 0, account: 1, stream_attempts: 0 }, injected: 0 });
    clock.advance(1_000);
    const refilled = await burst(51, read);
    expect(refilled.filter((r) => r.status === 200)).toHaveLength(50);
    expect(sim.rateLimits().earned.account).toBe(2);
  });

  it('charges 5 read tokens for the heavy portfolio reads', async () => {
    await limited({ account: true });
    const token = sim.venue.createAccount('heavy', USDC(1)).token.secret;
    const results = await burst(21, () => api(sim, 'GET', '/trade/v1/portfolio/summary', { token }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    expectAccount429(results.find((r) => r.status === 429) as ApiResponse, 'read');
  });

  it('trips cancel_all at 10, keeps the read spend of refused calls, and refills 1 per second', async () => {
    await limited({ account: true });
    const token = sim.venue.createAccount('canceller', USDC(1)).token.secret;
    const cancelAll = (): Promise<ApiResponse> => api(sim, 'POST', '/trade/v1/orders/cancel-all', { token });
    const ten = await burst(10, cancelAll);
    expect(ten.every((r) => r.status === 202)).toBe(true);
    const refused = await cancelAll();
    expectAccount429(refused, 'cancel_all');
    expect(refused.headers.get('retry-after')).toBe('1');
    // 11 requests spent 11 read tokens, the refused one included.
    const probe = await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token });
    expect(probe.headers.get('x-ratelimit-remaining')).toBe('88');
    clock.advance(1_000);
    expect((await cancelAll()).status).toBe(202);
    expectAccount429(await cancelAll(), 'cancel_all');
  });

  it('gives the higher tier its figures from the next request on: place trips at 500', async () => {
    await limited({ account: true });
    const trader = sim.venue.createAccount('pro', USDC(100_000));
    trader.account.tier = 'higher';
    const market = tradableMarket(sim);
    // Rejected orders still consume a place token: these are all below the minimum value.
    const place = (): Promise<ApiResponse> =>
      api(sim, 'POST', '/trade/v1/orders', {
        token: trader.token.secret,
        body: {
          token_id: market.outcomes[0].tokenId,
          side: 'BUY',
          type: 'LIMIT',
          price_micro: '10000',
          shares_micro: '5000000',
        },
      });
    const results = await burst(500, place);
    expect(results.every((r) => r.status === 422)).toBe(true);
    const refused = await place();
    expectAccount429(refused, 'place');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('500');
  });

  it('shares one envelope between all tokens of an account', async () => {
    await limited({ account: true });
    const owner = sim.venue.createAccount('two-tokens', USDC(1));
    const second = sim.venue.accounts.issueToken(owner.account.id, ['portfolio:read'], clock.now()).secret;
    await burst(100, () => api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: owner.token.secret }));
    expectAccount429(await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: second }), 'read');
  });
});

describe('per-IP limits', () => {
  it('bursts 400 catalogue requests, then 429 problem+json without account headers', async () => {
    await limited({ ipBurst: true });
    const results = await burst(401, () => api(sim, 'GET', '/api/v1/categories'));
    expect(results.filter((r) => r.status === 200)).toHaveLength(400);
    const refused = results.find((r) => r.status === 429) as ApiResponse;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.json).toMatchObject({
      code: 'rate_limited',
      recovery: { strategy: 'retry_after', after_seconds: 1 },
    });
    expect(refused.json.request_id).toBe(refused.headers.get('x-request-id'));
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-bucket')).toBeNull();
  });

  it('caps catalogue requests at 6,000 a minute with the edge form of 429', async () => {
    await limited({ ipBurst: true, edge: true });
    for (let second = 0; second < 15; second++) {
      const results = await burst(400, () => api(sim, 'GET', '/api/v1/categories'));
      expect(results.every((r) => r.status === 200)).toBe(true);
      clock.advance(1_000);
    }
    const edge = await api(sim, 'GET', '/api/v1/categories');
    expect(edge.status).toBe(429);
    expect(edge.headers.get('content-type')).toBe('application/json');
    expect(edge.headers.get('x-request-id')).toBeNull();
    expect(edge.json.request_id).toBeUndefined();
    expect(edge.json).toMatchObject({ code: 'rate_limited', recovery: { strategy: 'retry_after' } });
    expect(edge.json.recovery.after_seconds).toBe(Number(edge.headers.get('retry-after')));
    // Trading paths have their own, larger cap.
    expect((await api(sim, 'GET', '/trade/v1/portfolio/rebates', { token: sim.demoToken })).status).toBe(200);
    clock.advance(60_000);
    expect((await api(sim, 'GET', '/api/v1/categories')).status).toBe(200);
  });
});
