import { afterEach, describe, expect, it } from 'vitest';
import type { ManualClock, SimulatorHandle } from '../src/simulator/index.ts';
import { quietSimulator } from './simulator-helpers.ts';
import { attempt, SseClient, StreamClient } from './simulator-stream-helpers.ts';

let sim: SimulatorHandle;
let clock: ManualClock;

afterEach(async () => {
  await sim.close();
});

const LIMIT = 300;

describe('stream connection attempts (§8.5)', () => {
  it('admits 300 attempts per endpoint per 60 s, then answers 429 with Retry-After: 60 without touching open streams', async () => {
    ({ sim, clock } = await quietSimulator());
    const open = await StreamClient.connect(sim);
    for (let i = 1; i < LIMIT; i++) expect(await attempt(sim, '/trade/v1/market-stream')).toBe('opened');
    const refused = await attempt(sim, '/trade/v1/market-stream');
    expect(refused).toMatchObject({
      status: 429,
      headers: { 'retry-after': '60', 'content-type': 'application/json' },
      body: { code: 'rate_limited', recovery: { strategy: 'retry_after', after_seconds: 60 } },
    });
    if (refused === 'opened') throw new Error('the 301st attempt was admitted');
    expect(refused.headers['x-request-id']).toBeUndefined();
    // A trailing slash or a query string is the same endpoint; another endpoint has its own allowance.
    expect(await attempt(sim, '/trade/v1/market-stream/')).toMatchObject({ status: 429 });
    expect(await attempt(sim, '/trade/v1/market-stream?x=1')).toMatchObject({ status: 429 });
    expect(await attempt(sim, '/trade/v1/account-stream', sim.demoToken)).toBe('opened');
    await open.sync();
    expect(open.ws.readyState).toBe(open.ws.OPEN);
    clock.advance(60_000);
    expect(await attempt(sim, '/trade/v1/market-stream')).toBe('opened');
    open.close();
  });

  it('counts failed attempts: 300 refused for credentials, then 429 even with a good token', async () => {
    ({ sim, clock } = await quietSimulator());
    const url = `${sim.url}/trade/v1/portfolio/stream`;
    for (let i = 0; i < LIMIT; i++) expect((await SseClient.connect(url)).status).toBe(401);
    const refused = await SseClient.connect(url, sim.demoToken);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toMatchObject({ code: 'rate_limited' });
  });
});
